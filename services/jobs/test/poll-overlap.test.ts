import { pacingFor, StatusCallBudget } from '../src/routing/status-call-budget';
import { Advancer } from '../src/usecases/advancer';
import type { JobsContext } from '../src/usecases/context';
import { jobPoller } from '../src/usecases/job-poller';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { routingOf, ScriptedProvider, startHarness, type Harness } from './support/jobs-harness';
import { busiestWindow, imageRequest } from './support/poll-checks';

const image = imageRequest;

const ROUND = 20;
const LIMIT = 200;

describe('the poller under a slow upstream (real database)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  /**
   * An upstream whose status calls take half a second, and due jobs well past the limit: the
   * poller's rounds overlap, so the calls open at the upstream at once and the rate it receives are
   * those of the limit, not of one round per call (20 a half second).
   */
  async function pollSlowUpstream(user: number, cap: number, intervalMs: number) {
    const slow = new ScriptedProvider(`slow-${user}`);
    h.billing.balances.set(user, 50 * 300);
    const ctx: JobsContext = { ...h.ctx, routing: routingOf([slow]) };
    const ids: string[] = [];
    for (let i = 0; i < 240; i++) ids.push((await submitJob(ctx, image(user, 'slow upstream'))).job_id);
    let open = 0;
    let most = 0;
    const received: number[] = [];
    slow.next = async () => {
      received.push(Date.now());
      most = Math.max(most, ++open);
      await new Promise((r) => setTimeout(r, 500));
      open--;
      return { state: 'running' };
    };
    const budget = new StatusCallBudget(new Map([[slow.name, LIMIT]]), Date.now, pacingFor(ROUND));
    const advancer = new Advancer(ctx, cap, () => poller.kick());
    const poller = jobPoller(ctx, advancer, budget, { batch: ROUND, intervalMs });
    // Every job polled twice: 480 calls, most of them while others were open.
    const polledTwice = () => ids.every((id) => (slow.statusCalls.get(`${slow.name}-${id}-1`) ?? 0) >= 2);
    while (!polledTwice()) await new Promise((r) => setTimeout(r, 20));
    await poller.stop();
    await advancer.drain();
    await h.db('jobs').update({ status: 'cancelled', next_poll_at: null }).where({ user_id: user });
    return { most, received, advancer };
  }

  it('lets rounds overlap up to the limit: many rounds of calls are open at once, and no second gets more than the limit', async () => {
    const { most, received, advancer } = await pollSlowUpstream(9101, 5 * ROUND, 50);
    // One round at a time would have at most 20 open; overlapping rounds fill the advancer.
    expect(most).toBeGreaterThan(ROUND);
    expect(most).toBeLessThanOrEqual(5 * ROUND);
    expect(busiestWindow(received, 1000)).toBeLessThanOrEqual(LIMIT);
    expect(advancer.inFlight.size).toBe(0);
  });

  it('holds the poller at the cap and wakes it when advances finish, without waiting for its interval', async () => {
    // An interval far longer than the test: only the advancer's wake-ups and the budget's pacing
    // run the rounds after the first.
    const { most, received } = await pollSlowUpstream(9102, 2 * ROUND, 600_000);
    expect(most).toBeGreaterThan(ROUND);
    expect(most).toBeLessThanOrEqual(2 * ROUND);
    expect(received.length).toBeGreaterThanOrEqual(480);
  });
});
