import { randomUUID } from 'node:crypto';
import { startFleet, userWithKey, type Fleet, type Replica } from '../support/fleet';
import { openSse, type SseStream } from '../support/sse-client';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * Short leases, so a killed replica's slots expire within the test; long enough that a live
 * replica's renewal (every third of it) still lands when a loaded machine stalls its event loop
 * for a second or two: a lapsed lease of an open stream rightly admits one stream too many.
 */
const SLOT_TTL_MS = 4000;
const REFUSAL = { error: 'Too many open event streams for this API key (limit 10)' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * With a shared RATE_LIMIT_STORE the 10 open streams per key hold across gateway replicas: each
 * open stream holds a lease in Redis that its replica renews, so a crashed replica's slots come
 * back once their leases expire.
 */
describe('the per-key stream limit shared by gateway replicas (RATE_LIMIT_STORE=redis)', () => {
  let fleet: Fleet;
  let second: Replica;
  const open: SseStream[] = [];

  beforeAll(async () => {
    fleet = await startFleet({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL,
      RATE_LIMIT_KEY_PREFIX: `mf-e2e:${randomUUID()}`,
      RATE_LIMIT_PER_MINUTE: '100000',
      STREAM_SLOT_TTL_MS: String(SLOT_TTL_MS),
    });
    second = await fleet.startReplica('gateway');
  }, 240_000);
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(async () => {
    await fleet?.shutdown();
  });

  const stream = async (baseUrl: string, key: string): Promise<SseStream> => {
    const s = await openSse(`${baseUrl}/api/v1/events/stream`, { key });
    open.push(s);
    return s;
  };
  /** Opens until a stream is admitted (a freed slot is seen once the server noticed the close). */
  const admittedEventually = async (baseUrl: string, key: string, timeoutMs = 20_000): Promise<SseStream> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const s = await stream(baseUrl, key);
      if (s.status === 200) return s;
      expect(s.status).toBe(429);
      if (Date.now() > until) throw new Error('no slot came free');
      await sleep(100);
    }
  };

  it('admits 10 streams of a key over both gateways, refuses the 11th on either with the 429, and frees a slot when one closes', async () => {
    const u = await userWithKey(fleet, 'jobs:read');
    const gateways = [fleet.baseUrl, second.baseUrl];
    const mine: SseStream[] = [];
    for (let i = 0; i < 10; i++) {
      const s = await stream(gateways[i % 2], u.key);
      expect(s.status).toBe(200);
      mine.push(s);
    }
    for (const g of gateways) {
      const refused = await stream(g, u.key);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(REFUSAL);
    }
    // Another key is not affected.
    const other = await userWithKey(fleet, 'jobs:read');
    expect((await stream(second.baseUrl, other.key)).status).toBe(200);

    // A stream closed on the second gateway frees a slot that the first one gives out, and only one.
    mine[1].close();
    await admittedEventually(fleet.baseUrl, u.key);
    expect((await stream(second.baseUrl, u.key)).status).toBe(429);
  });

  it("gives a killed replica's slots back once their leases expire", async () => {
    const u = await userWithKey(fleet, 'jobs:read');
    const doomed = await fleet.startReplica('gateway', { STREAM_SLOT_TTL_MS: String(SLOT_TTL_MS) });
    for (let i = 0; i < 10; i++) expect((await stream(doomed.baseUrl, u.key)).status).toBe(200);
    expect((await stream(fleet.baseUrl, u.key)).status).toBe(429);

    await doomed.stop('SIGKILL'); // its streams are never closed in the store, its leases never renewed
    await admittedEventually(fleet.baseUrl, u.key);
    // All ten came back, and no more: the key counts exactly its streams open on the live gateways.
    // Each lease expires a lease period after its own last renewal, so they come back one by one.
    for (let i = 1; i < 10; i++) await admittedEventually(i % 2 ? second.baseUrl : fleet.baseUrl, u.key);
    const refused = await stream(second.baseUrl, u.key);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(REFUSAL);
  });
});
