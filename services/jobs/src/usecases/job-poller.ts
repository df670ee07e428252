import { periodic, type PeriodicTask } from '@mf/runtime';
import type { StatusCallBudget } from '../routing/status-call-budget';
import type { Advancer } from './advancer';
import type { JobsContext } from './context';
import { startDueJobs } from './poll-round.usecase';

/**
 * The poller: rounds of `batch` due jobs, overlapping. Each round returns once its jobs are claimed,
 * their advances go on in `advancer`, and the next round runs as soon as the budget's pacing lets it
 * (a round that found work runs the next at once; one that found the limit spent is woken when a
 * call frees), else after `intervalMs`. Kick it when the advancer has room again.
 */
export function jobPoller(
  ctx: JobsContext,
  advancer: Advancer,
  budget: StatusCallBudget,
  opts: { batch: number; intervalMs: number },
): PeriodicTask {
  let budgetWake: NodeJS.Timeout | undefined;
  const poller = periodic(
    'job poller',
    opts.intervalMs,
    async () => {
      const handled = (await startDueJobs(ctx, advancer, opts.batch, budget)).length;
      // An upstream whose pace or limit held a round back may still have due jobs: the next round
      // runs when it has a call again, not a whole interval later (at the cap, the advancer wakes it).
      const wait = advancer.room() > 0 ? budget.msUntilWanted() : null;
      if (wait !== null && wait < opts.intervalMs) {
        clearTimeout(budgetWake);
        budgetWake = setTimeout(() => poller.kick(), wait);
        budgetWake.unref();
      }
      return handled;
    },
    ctx.logger,
  );
  return {
    kick: () => poller.kick(),
    stop: () => {
      clearTimeout(budgetWake);
      return poller.stop();
    },
  };
}
