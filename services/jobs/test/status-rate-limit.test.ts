import { advanceDueJobs } from '../src/usecases/poll-round.usecase';
import { Advancer } from '../src/usecases/advancer';
import { CallbackPolls } from '../src/usecases/callback-poll.usecase';
import type { JobsContext } from '../src/usecases/context';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { pacingFor, StatusCallBudget } from '../src/routing/status-call-budget';
import { routingOf, ScriptedProvider, startHarness, type Harness } from './support/jobs-harness';
import { busiestWindow, imageRequest } from './support/poll-checks';

const image = imageRequest;

describe('polling under limits (real database)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('rounds running at once never call a limited upstream more than its limit in any second, as sent or as received, and every job is polled; an unlimited one is not held back', async () => {
    const limited = new ScriptedProvider('limited');
    const free = new ScriptedProvider('free');
    const u = 9001;
    h.billing.balances.set(u, 50 * 60);
    // Jobs are due again 50 ms after each poll (the harness' poll interval): far more than 20 a second are due.
    const submitTo = async (p: ScriptedProvider, n: number) => {
      const ctx: JobsContext = { ...h.ctx, routing: routingOf([p]) };
      const ids: string[] = [];
      for (let i = 0; i < n; i++) ids.push((await submitJob(ctx, image(u, `rate ${p.name}`))).job_id);
      return ids;
    };
    const limitedIds = await submitTo(limited, 30);
    const freeIds = await submitTo(free, 10);
    const ctx: JobsContext = { ...h.ctx, routing: routingOf([limited, free]) };

    // Paced as the service paces its poller (rounds of its batch, here 7).
    const budget = new StatusCallBudget(new Map([['limited', 20]]), Date.now, pacingFor(7));
    // The instants the limited upstream received its status calls.
    const received: number[] = [];
    limited.next = () => {
      received.push(Date.now());
      return { state: 'running' };
    };
    // The instants of the slots the rounds kept (as settled: from when their calls were made).
    const taken: number[] = [];
    const settle = budget.settle.bind(budget);
    budget.settle = (provider, reservation, used) => {
      if (provider === 'limited') for (let i = 0; i < used; i++) taken.push(Date.now());
      settle(provider, reservation, used);
    };
    const polled = (p: ScriptedProvider, ids: string[], times: number) =>
      ids.every((id) => (p.statusCalls.get(`limited-${id}-1`) ?? p.statusCalls.get(`free-${id}-1`) ?? 0) >= times);

    const done = () => polled(limited, limitedIds, 2);
    // Three rounds at once, as overlapping pollers of one process would run, sharing its budget.
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        while (!done()) {
          const handled = await advanceDueJobs(ctx, 7, undefined, budget);
          // As the service's poller does: back after its interval (the harness' 50 ms), or sooner
          // when the limited upstream has a call again.
          if (!handled) await new Promise((r) => setTimeout(r, Math.min(budget.msUntilNextFrees() ?? 50, 50)));
        }
      }),
    );

    const calls = [...limited.statusCalls.values()].reduce((s, n) => s + n, 0);
    // Every status call the limited upstream got went through the budget, and the budget never let
    // more than 20 through in any one second.
    expect(calls).toBe(taken.length);
    expect(calls).toBeGreaterThanOrEqual(60);
    expect(busiestWindow(taken, 1000)).toBeLessThanOrEqual(20);
    // Nor did the upstream see more than 20 in any sliding second: no round met the next.
    expect(received).toHaveLength(calls);
    expect(busiestWindow(received, 1000)).toBeLessThanOrEqual(20);
    // The unlimited provider's jobs were polled meanwhile, many times more often.
    expect(polled(free, freeIds, 4)).toBe(true);
    await h.db('jobs').update({ status: 'cancelled', next_poll_at: null }).where({ user_id: u });
  });

  it('callback polls claim every job at once but advance at most their limit at a time, then all', async () => {
    const slow = new ScriptedProvider('slow');
    const u = 9002;
    h.billing.balances.set(u, 50 * 6);
    const ctx: JobsContext = { ...h.ctx, routing: routingOf([slow]) };
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await submitJob(ctx, image(u, 'callback burst'))).job_id);
    let open = 0;
    let most = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    slow.next = async () => {
      most = Math.max(most, ++open);
      await held;
      open--;
      return { state: 'running' };
    };
    const polls = new CallbackPolls(ctx, () => undefined, new Advancer(ctx, 2));
    // Every callback is answered (its job claimed) though only two jobs are being advanced.
    expect(await Promise.all(ids.map((id) => polls.pollNow(id)))).toEqual(ids.map(() => true));
    for (let i = 0; i < 500 && open < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(open).toBe(2);
    expect(polls.inFlight.size).toBe(6);
    release();
    await polls.drain();
    expect(most).toBe(2);
    expect([...slow.statusCalls.values()].reduce((a, n) => a + n, 0)).toBe(6);
    expect(polls.inFlight.size).toBe(0);
    await h.db('jobs').update({ status: 'cancelled', next_poll_at: null }).where({ user_id: u });
  });
});
