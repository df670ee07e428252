import {
  USAGE_GROUPINGS,
  type OperatorUsageReply,
  type OperatorUsageRequest,
  type UsageReport,
  type UsageRequest,
  type UsageRow,
} from '@mf/contracts';
import type { Knex } from '@mf/db';
import { operatorUsageSums } from '../repositories/operator-usage.repository';
import { usageSums, type UsageSums } from '../repositories/usage.repository';

/**
 * The user's usage over [from, to) grouped as asked (in the order day, model, key whatever the
 * request's), with its totals. The gateway has checked the range.
 */
export async function usage(db: Knex, req: UsageRequest): Promise<UsageReport> {
  const groupBy = USAGE_GROUPINGS.filter((g) => req.group_by.includes(g));
  const sums = await usageSums(db, req.user_id, { from: req.from, to: req.to }, groupBy);
  const rows = sums.map(toRow);
  const totals = { jobs: 0, credits_charged: 0, credits_refunded: 0, credits_net: 0 };
  for (const r of rows) {
    totals.jobs += r.jobs;
    totals.credits_charged += r.credits_charged;
    totals.credits_refunded += r.credits_refunded;
    totals.credits_net += r.credits_net;
  }
  return { from: req.from, to: req.to, group_by: groupBy, rows, totals };
}

function toRow(s: UsageSums): UsageRow {
  const charged = Number(s.credits_charged);
  const refunded = Number(s.credits_refunded);
  return {
    ...(s.day !== undefined ? { day: s.day } : {}),
    ...(s.model !== undefined ? { model: s.model } : {}),
    ...(s.api_key_id !== undefined ? { api_key_id: s.api_key_id === null ? null : Number(s.api_key_id) } : {}),
    jobs: Number(s.jobs),
    credits_charged: charged,
    credits_refunded: refunded,
    credits_net: charged - refunded,
  };
}

/** Every user's usage in [from, to), by user or model: billing's part of the operator's report. */
export async function operatorUsage(db: Knex, req: OperatorUsageRequest): Promise<OperatorUsageReply> {
  const sums = await operatorUsageSums(db, req, req.by);
  return {
    rows: sums.map((s) => {
      const charged = Number(s.credits_charged);
      const refunded = Number(s.credits_refunded);
      return {
        ...(req.by === 'user' ? { user_id: Number(s.user_id) } : { model: s.model ?? 'unknown' }),
        jobs: Number(s.jobs),
        credits_charged: charged,
        credits_refunded: refunded,
        credits_net: charged - refunded,
      };
    }),
  };
}
