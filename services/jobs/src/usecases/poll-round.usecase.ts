import type { JobRow } from '../domain/job';
import { claimDueJobs } from '../repositories/jobs.repository';
import type { StatusCallBudget } from '../routing/status-call-budget';
import { LEASE_MS } from './advance-job.usecase';
import { Advancer } from './advancer';
import type { JobsContext } from './context';

/**
 * One poll round, handed over: claims due jobs (SKIP LOCKED) and starts advancing each on
 * `advancer`, then resolves with their advances under way, without waiting for them: the claim's
 * lease keeps other pollers off them, so the next round may run as soon as the budget's pacing and
 * the advancer's cap allow. At most `batch` jobs, and no more than the advancer has turns for (held
 * before the claim, so every job claimed starts at once). With a `budget`, a rate-limited
 * provider's jobs are claimed only as many as it may get status calls now (its share of the batch),
 * so a round never calls an upstream past its limit and never holds a lease on a job it cannot
 * poll; the others' jobs fill the rest of the batch.
 */
export async function startDueJobs(
  ctx: JobsContext,
  advancer: Advancer,
  batch: number,
  budget?: StatusCallBudget,
): Promise<Promise<void>[]> {
  const turns = advancer.hold(batch);
  const jobs: JobRow[] = [];
  let failed: { err: unknown } | undefined;
  try {
    for (const provider of budget?.limited() ?? []) {
      if (jobs.length >= turns) break;
      const reservation = budget!.reserve(provider, turns - jobs.length);
      if (reservation.n <= 0) continue;
      let claimed: JobRow[] = [];
      try {
        claimed = await claimDueJobs(ctx.db, reservation.n, LEASE_MS, { provider });
      } finally {
        // The slots count from now, when the calls are made, not from before the claim (which may
        // take a while): a slow claim never bunches more than the limit into the upstream's second.
        budget!.settle(provider, reservation, claimed.length);
      }
      jobs.push(...claimed);
    }
    if (jobs.length < turns)
      jobs.push(
        ...(await claimDueJobs(ctx.db, turns - jobs.length, LEASE_MS, { notPolledAt: budget?.limited() ?? [] })),
      );
  } catch (err) {
    failed = { err };
  }
  advancer.release(turns - jobs.length);
  // Jobs claimed before a later claim failed are advanced all the same: their turns are held.
  const advances = jobs.map((job) => advancer.advance(job, { held: true }));
  if (failed) throw failed.err;
  return advances;
}

/**
 * One poll round, waited for: as startDueJobs, resolving with how many jobs it handled once each
 * has been advanced. On an advancer of its own unless given one.
 */
export async function advanceDueJobs(
  ctx: JobsContext,
  batch: number,
  advancer: Advancer = new Advancer(ctx, batch),
  budget?: StatusCallBudget,
): Promise<number> {
  const advances = await startDueJobs(ctx, advancer, batch, budget);
  await Promise.all(advances);
  return advances.length;
}
