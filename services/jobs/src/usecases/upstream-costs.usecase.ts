import type { UpstreamCostsReply, UpstreamCostsRequest, UpstreamCostsRow } from '@mf/contracts';
import { attemptCostSums, completedJobSums } from '../repositories/upstream-costs.repository';
import type { JobsContext } from './context';

/**
 * The jobs service's part of the operator's report (docs/usage.md): per user, model or provider,
 * the jobs completed in [from, to) with their credits, and the attempts that ended in it with what
 * they cost upstream. An attempt counts under its own provider; a job under the provider that made it.
 */
export async function upstreamCosts(ctx: JobsContext, req: UpstreamCostsRequest): Promise<UpstreamCostsReply> {
  const [attempts, jobs] = await Promise.all([
    attemptCostSums(ctx.db, req, req.by),
    completedJobSums(ctx.db, req, req.by),
  ]);
  const rows = new Map<string, UpstreamCostsRow>();
  const rowOf = (key: string | number): UpstreamCostsRow => {
    const id = String(key);
    let row = rows.get(id);
    if (!row) {
      const group =
        req.by === 'user' ? { user_id: Number(key) } : req.by === 'model' ? { model: id } : { provider: id };
      row = { ...group, jobs: 0, credits_kept: 0, attempts: 0, upstream_cost: 0, unpriced_attempts: 0 };
      rows.set(id, row);
    }
    return row;
  };
  for (const a of attempts) {
    const row = rowOf(a.key);
    row.attempts = Number(a.attempts);
    row.upstream_cost = a.upstream_cost === null ? 0 : Number(a.upstream_cost);
    row.unpriced_attempts = Number(a.unpriced_attempts);
  }
  for (const j of jobs) {
    const row = rowOf(j.key);
    row.jobs = Number(j.jobs);
    row.credits_kept = Number(j.credits_kept);
  }
  return { rows: [...rows.values()] };
}
