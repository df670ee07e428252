import type { Bus } from '@mf/bus';
import { ROUTING_KEYS, type JobEventPayload } from '@mf/contracts';
import { relayOutbox } from '../src/messaging/outbox-relay';
import { addToOutbox } from '../src/repositories/outbox.repository';
import { startHarness, type Harness } from './support/jobs-harness';

/** A bus that records what it is asked to publish; `failAt` (0-based) rejects that publish. */
function recordingBus(failAt = -1): { bus: Bus; published: string[] } {
  const published: string[] = [];
  const bus = {
    connected: true,
    publishEvent: (_def: unknown, payload: JobEventPayload) => {
      if (published.length === failAt) {
        failAt = -1;
        return Promise.reject(new Error('broker gone'));
      }
      published.push(payload.job_id);
      return Promise.resolve();
    },
  };
  return { bus: bus as unknown as Bus, published };
}

describe('outbox relay against the real database', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    await h.db('outbox').update({ published_at: h.db.fn.now() }).whereNull('published_at');
  });

  const addEvents = async (...jobIds: string[]): Promise<void> => {
    for (const jobId of jobIds) {
      await h.db.transaction((trx) =>
        addToOutbox(trx, ROUTING_KEYS.jobCompleted, { job_id: jobId, user_id: 7 } as JobEventPayload),
      );
    }
  };

  it('publishes unpublished events in id order, marks them, and ends its transaction', async () => {
    await addEvents('job_relay1', 'job_relay2');
    const { bus, published } = recordingBus();
    expect(await relayOutbox(h.db, bus)).toBe(2);
    expect(published).toEqual(['job_relay1', 'job_relay2']);
    const left = await h.db('outbox').whereIn('job_id', ['job_relay1', 'job_relay2']).whereNull('published_at');
    expect(left).toHaveLength(0);
    // The relay's turn (a transaction-scoped lock) was released: the next run gets it and the new event.
    await addEvents('job_relay3');
    expect(await relayOutbox(h.db, bus)).toBe(1);
    expect(published).toEqual(['job_relay1', 'job_relay2', 'job_relay3']);
    expect(await relayOutbox(h.db, bus)).toBe(0);
  });

  it('keeps the events after a failed publish for the next run, in order', async () => {
    await addEvents('job_relay4', 'job_relay5', 'job_relay6');
    const { bus, published } = recordingBus(1);
    expect(await relayOutbox(h.db, bus)).toBe(1);
    const unpublished = await h
      .db('outbox')
      .whereIn('job_id', ['job_relay4', 'job_relay5', 'job_relay6'])
      .whereNull('published_at')
      .orderBy('id')
      .pluck('job_id');
    expect(unpublished).toEqual(['job_relay5', 'job_relay6']);
    expect(await relayOutbox(h.db, bus)).toBe(2);
    expect(published).toEqual(['job_relay4', 'job_relay5', 'job_relay6']);
  });

  it('publishes each event once when two relays race', async () => {
    await addEvents('job_relay7', 'job_relay8');
    const { bus, published } = recordingBus();
    const counts = await Promise.all([relayOutbox(h.db, bus), relayOutbox(h.db, bus)]);
    const rest = await relayOutbox(h.db, bus);
    expect(counts[0] + counts[1] + rest).toBe(2);
    expect(published).toEqual(['job_relay7', 'job_relay8']);
  });
});
