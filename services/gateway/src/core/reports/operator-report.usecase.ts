import type { Bus } from '@mf/bus';
import {
  billingReportsRpc,
  jobsReportsRpc,
  type OperatorReport,
  type OperatorReportRow,
  type UpstreamCostsRow,
} from '@mf/contracts';
import type { Knex } from '@mf/db';
import { emailsByIds } from '../repositories/users.repository';
import { csvLine, csvLines } from './csv';
import type { OperatorReportAsk } from './operator-report-query';
import type { ReportSink } from './report-sink';

/** Dollars to the micro-dollar (sums of numerics come back as floats). */
const micro = (usd: number): number => Math.round(usd * 1e6) / 1e6;

type Counts = Pick<OperatorReportRow, 'jobs' | 'credits_net' | 'upstream_cost' | 'unpriced_attempts'>;

/**
 * The operator's usage report (docs/usage.md): per user, model or provider, the jobs, credits net,
 * what they cost upstream and the margin. Each service answers from its own data over its reports
 * queue: billing the credits, jobs the upstream cost; the gateway adds the emails and the money.
 * By user and model the jobs and credits are billing's (every charge, editor turns included); by
 * provider they are the jobs completed on it (billing knows no provider), their charges kept.
 */
export async function operatorReport(
  deps: { db: Knex; bus: Bus },
  ask: OperatorReportAsk,
  creditValue: number,
  opts: { correlationId?: string } = {},
): Promise<OperatorReport> {
  const range = { from: ask.from, to: ask.to };
  const costs = deps.bus.rpc(jobsReportsRpc, 'upstreamCosts', { ...range, by: ask.by }, opts);
  const byKey = new Map<string, { key: Pick<OperatorReportRow, 'user_id' | 'model' | 'provider'> } & Counts>();
  const rowOf = (key: Pick<OperatorReportRow, 'user_id' | 'model' | 'provider'>) => {
    const id = String(key.user_id ?? key.model ?? key.provider);
    let row = byKey.get(id);
    if (!row) {
      row = { key, jobs: 0, credits_net: 0, upstream_cost: 0, unpriced_attempts: 0 };
      byKey.set(id, row);
    }
    return row;
  };
  const keyOf = (r: UpstreamCostsRow) =>
    ask.by === 'user' ? { user_id: r.user_id } : ask.by === 'model' ? { model: r.model } : { provider: r.provider };
  if (ask.by !== 'provider') {
    const usage = await deps.bus.rpc(billingReportsRpc, 'operatorUsage', { ...range, by: ask.by }, opts);
    for (const u of usage.rows) {
      const row = rowOf(ask.by === 'user' ? { user_id: u.user_id } : { model: u.model });
      row.jobs = u.jobs;
      row.credits_net = u.credits_net;
    }
  }
  for (const c of (await costs).rows) {
    const row = rowOf(keyOf(c));
    row.upstream_cost = c.upstream_cost;
    row.unpriced_attempts = c.unpriced_attempts;
    if (ask.by === 'provider') {
      row.jobs = c.jobs;
      row.credits_net = c.credits_kept;
    }
  }
  const emails =
    ask.by === 'user'
      ? await emailsByIds(
          deps.db,
          [...byKey.values()].map((r) => r.key.user_id).filter((id) => id !== undefined),
        )
      : new Map<number, string>();
  const money = (c: Counts) => {
    const revenue = micro(c.credits_net * creditValue);
    return { ...c, upstream_cost: micro(c.upstream_cost), revenue, margin: micro(revenue - c.upstream_cost) };
  };
  const rows = [...byKey.values()]
    .sort((a, b) => sortKey(a.key) - sortKey(b.key) || String(sortText(a.key)).localeCompare(sortText(b.key)))
    .map(({ key, ...counts }) => ({
      ...key,
      ...(key.user_id !== undefined && emails.has(key.user_id) ? { email: emails.get(key.user_id) } : {}),
      ...money(counts),
    }));
  const sum = rows.reduce<Counts>(
    (t, r) => ({
      jobs: t.jobs + r.jobs,
      credits_net: t.credits_net + r.credits_net,
      upstream_cost: t.upstream_cost + r.upstream_cost,
      unpriced_attempts: t.unpriced_attempts + r.unpriced_attempts,
    }),
    { jobs: 0, credits_net: 0, upstream_cost: 0, unpriced_attempts: 0 },
  );
  return { ...range, by: ask.by, credit_value: creditValue, rows, totals: money(sum) };
}

const sortKey = (k: { user_id?: number }): number => k.user_id ?? 0;
const sortText = (k: { model?: string; provider?: string }): string => k.model ?? k.provider ?? '';

const GROUP_COLUMNS = { user: ['user_id', 'email'], model: ['model'], provider: ['provider'] } as const;
const MONEY_COLUMNS = ['jobs', 'credits_net', 'revenue', 'upstream_cost', 'margin', 'unpriced_attempts'] as const;

/** The report's rows as CSV (RFC 4180): the group's columns, then the figures; no totals row. */
export async function writeOperatorReportCsv(report: OperatorReport, sink: ReportSink): Promise<void> {
  const columns = [...GROUP_COLUMNS[report.by], ...MONEY_COLUMNS];
  await sink.write(csvLine(columns));
  for (let i = 0; i < report.rows.length; i += 500) await sink.write(csvLines(columns, report.rows.slice(i, i + 500)));
}
