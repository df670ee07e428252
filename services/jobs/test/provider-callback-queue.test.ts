import { Bus } from '@mf/bus';
import { providerCallbackReceived, QUEUES } from '@mf/contracts';
import { signCallbackToken } from '@mf/runtime';
import { silentLogger } from '@mf/testing';
import { findJob } from '../src/repositories/jobs.repository';
import { consumeProviderCallbacks } from '../src/messaging/provider-callbacks.consumer';
import { Advancer } from '../src/usecases/advancer';
import { CallbackPolls } from '../src/usecases/callback-poll.usecase';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { producedFile, startHarness, type Harness } from './support/jobs-harness';
import { imageRequest } from './support/poll-checks';

const image = (user: number) => imageRequest(user, 'called back');

async function until(what: string, ok: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('provider callbacks on the jobs queue (real broker and database)', () => {
  let h: Harness;
  const buses: Bus[] = [];
  const busOf = async (service: string): Promise<Bus> => {
    const bus = new Bus({ url: h.env.amqpUrl, service, logger: silentLogger() });
    buses.push(bus);
    await bus.start();
    return bus;
  };
  /** A jobs replica's callback consumer, on a connection of its own (closing it is the replica going away). */
  const jobsReplica = async () => {
    const bus = await busOf('jobs');
    const polls = new CallbackPolls(h.ctx, () => undefined, new Advancer(h.ctx, 5));
    await consumeProviderCallbacks(bus, h.ctx, polls, 5);
    return { bus, polls };
  };

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    for (const bus of buses) await bus.close().catch(() => undefined);
    await h?.close();
  });

  it('acts on a callback sent while jobs was not consuming once it consumes again, however long it waited, and on a repeat of it harmlessly', async () => {
    const u = 9201;
    h.billing.balances.set(u, 50);
    const { job_id } = await submitJob(h.ctx, image(u));
    // Not due: only the callback can make it move.
    await h
      .db('jobs')
      .update({ next_poll_at: new Date(Date.now() + 3_600_000) })
      .where({ id: job_id });
    const file = producedFile(h.mediaDir, 'called-back.png');
    h.provider.next = () => ({ state: 'completed', outputs: [{ kind: 'file', path: file, contentType: 'image/png' }] });

    // Jobs ran once (its queue exists), then went away.
    const first = await jobsReplica();
    await first.bus.close();

    // The gateway hands the callback over, twice (the upstream called again): confirmed by the
    // broker, with no jobs consuming and no reply awaited.
    const gateway = await busOf('gateway');
    const token = signCallbackToken(h.ctx.settings.callbackSecret, {
      jobId: job_id,
      attempt: 1,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    await gateway.publishEvent(providerCallbackReceived, { job_id, token, attempt: 1 });
    await gateway.publishEvent(providerCallbackReceived, { job_id, token, attempt: 1 });
    let queued = 0;
    await gateway.declare(async (channel) => {
      queued = (await channel.checkQueue(QUEUES.jobsProviderCallbacks)).messageCount;
    });
    expect(queued).toBe(2);
    expect(h.provider.statusCalls.get(`req-${job_id}`)).toBeUndefined();

    // Jobs is back: the callbacks waiting in the queue (no deadline) poll the job, once.
    const second = await jobsReplica();
    await until('the job completed', async () => (await findJob(h.db, job_id))?.status === 'completed');
    await second.polls.drain();
    expect(h.provider.statusCalls.get(`req-${job_id}`)).toBe(1);
    await until('the queue emptied', async () => {
      let left = -1;
      await gateway.declare(async (channel) => {
        left = (await channel.checkQueue(QUEUES.jobsProviderCallbacks)).messageCount;
      });
      return left === 0;
    });
  });
});
