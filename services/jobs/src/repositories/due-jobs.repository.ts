import { rowsOf, type Knex } from '@mf/db';
import type { JobRow } from '../domain/job';

/** Which due jobs a claim takes: one provider's polls, or every job but those providers' polls. */
export type DueJobsOf = { provider: string } | { notPolledAt: string[] };

/**
 * Claims due jobs for one poller round (SKIP LOCKED: two replicas never take the same rows). Each
 * is leased (not due again) for `leaseMs`, so a poller that dies mid-round leaves them to the next,
 * but never past the job's deadline (plus a few seconds), so a job whose poller died is still timed
 * out on time. `of` narrows the claim to jobs whose poll asks one provider (a rate-limited
 * upstream's share of the round), or to every job but those (jobs without an upstream request ask
 * no provider and are always in this share). Oldest due first.
 */
export async function claimDueJobs(db: Knex, limit: number, leaseMs: number, of?: DueJobsOf): Promise<JobRow[]> {
  const due = db('jobs')
    .select('id')
    .where({ status: 'processing' })
    .andWhere('next_poll_at', '<=', db.fn.now())
    .orderBy('next_poll_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  if (of && 'provider' in of) due.andWhere({ provider: of.provider }).whereNotNull('provider_request_id');
  else if (of && of.notPolledAt.length)
    due.andWhere(
      db.raw(`(provider_request_id IS NULL OR provider IS NULL OR NOT (provider = ANY(?::text[])))`, [of.notPolledAt]),
    );
  return rowsOf<JobRow>(
    db('jobs')
      .update({
        next_poll_at: db.raw(
          `LEAST(now() + (? * interval '1 millisecond'), GREATEST(deadline_at, now() + interval '5 seconds'))`,
          [leaseMs],
        ),
      })
      .whereIn('id', due)
      .returning('*'),
  );
}
