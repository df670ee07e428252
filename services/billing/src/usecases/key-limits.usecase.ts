import type { KeyLimits, KeyLimitsReply, KeyLimitsRequest, SetKeyLimitsRequest } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { findLimits, upsertLimits, type KeyLimitsRow } from '../repositories/key-limits.repository';

/**
 * A key's spend limit and concurrent-jobs limit (docs/api-behaviour.md "Spend caps"). Billing keeps
 * them with the key's counters so a charge checks them in its own transaction; the gateway, which
 * owns the keys, checks the key is the user's before setting them. A new limit applies to the next
 * charge: one already below it is not undone.
 */
export async function setKeyLimits(db: Knex, req: SetKeyLimitsRequest): Promise<KeyLimits> {
  const row = await upsertLimits(db, req);
  if (!row) throw AppError.notFound('API key not found');
  return view(row);
}

export async function keyLimits(db: Knex, req: KeyLimitsRequest): Promise<KeyLimitsReply> {
  const rows = new Map((await findLimits(db, req.user_id, req.api_key_ids)).map((r) => [r.api_key_id, r]));
  return {
    keys: req.api_key_ids.map((id) => {
      const row = rows.get(id);
      return row
        ? view(row)
        : { api_key_id: id, spend_limit: null, max_concurrent_jobs: null, spent_this_period: 0, active_jobs: 0 };
    }),
  };
}

function view(row: KeyLimitsRow): KeyLimits {
  return {
    api_key_id: row.api_key_id,
    spend_limit: row.spend_limit,
    max_concurrent_jobs: row.max_concurrent_jobs,
    spent_this_period: row.spent_this_period,
    active_jobs: row.active,
  };
}
