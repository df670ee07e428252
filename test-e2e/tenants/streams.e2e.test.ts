import { randomUUID } from 'node:crypto';
import { DashboardSession } from '../support/dashboard-session';
import { api, startFleet, userWithKey, type Fleet, type Replica } from '../support/fleet';
import { waitForJob } from '../support/jobs';
import { openSse, type SseStream } from '../support/sse-client';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The bound: a revoked key's open streams end this soon on every replica. */
const REVOKED_STREAM_ENDS_WITHIN_MS = 2000;
/** Small, so the test reaches it; the per-key limit (10) stays above it. */
const PER_USER = 3;
const SCOPE_403 = { error: 'This API key lacks the required scope: jobs:read', required_scope: 'jobs:read' };
const USER_CAP_429 = { error: `Too many open event streams for this user (limit ${PER_USER})` };

/**
 * Tenant isolation of the event log and its streams on two gateway replicas sharing a stream-slot
 * store: a narrow key reads no log, a revoked key's streams end everywhere, a finished job's stream
 * is not held open, and a user's streams are capped over all their keys.
 */
describe('event streams: narrow keys, revoked keys and stream caps across tenants', () => {
  let fleet: Fleet;
  let second: Replica;
  const open: SseStream[] = [];

  beforeAll(async () => {
    fleet = await startFleet({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL,
      RATE_LIMIT_KEY_PREFIX: `mf-e2e:${randomUUID()}`,
      RATE_LIMIT_PER_MINUTE: '100000',
      STREAMS_PER_USER: String(PER_USER),
      // Far longer than the test: only the broker's revocation event can end a revoked key's use.
      KEY_CACHE_TTL_MS: '30000',
    });
    second = await fleet.startReplica('gateway');
  }, 240_000);
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(async () => {
    await fleet?.shutdown();
  });

  const stream = async (baseUrl: string, key: string, path = '/api/v1/events/stream', lastEventId?: string) => {
    const s = await openSse(`${baseUrl}${path}`, { key, lastEventId });
    open.push(s);
    return s;
  };

  it('refuses the log and the user-wide stream to a models:read key with the scope 403', async () => {
    const u = await userWithKey(fleet, 'models:read');
    const log = await api(fleet, 'GET', '/api/v1/events', { key: u.key });
    expect([log.status, log.body]).toEqual([403, SCOPE_403]);
    for (const [gateway, lastEventId] of [
      [fleet.baseUrl, undefined],
      [second.baseUrl, 'evt_0000000000000000'],
    ] as const) {
      const s = await stream(gateway, u.key, '/api/v1/events/stream', lastEventId);
      expect([s.status, s.body]).toEqual([403, SCOPE_403]);
    }
  });

  it("ends a revoked key's open streams on both gateways within 2 s of the revocation", async () => {
    const session = new DashboardSession(fleet.baseUrl);
    expect((await session.signUp(`streamer${Date.now()}@example.test`, 'a long enough password')).status).toBe(201);
    const created = await session.post('/keys', { body: { name: 'streams', scopes: ['jobs:read'] } });
    expect(created.status).toBe(201);
    const key: string = created.body.secret_key;
    const streams = [await stream(fleet.baseUrl, key), await stream(second.baseUrl, key)];
    for (const s of streams) expect(s.status).toBe(200);
    // A stream of another user's key goes on.
    const other = await userWithKey(fleet, 'jobs:read');
    const kept = await stream(second.baseUrl, other.key);
    expect(kept.status).toBe(200);

    expect((await session.delete(`/keys/${created.body.key.id}`)).status).toBe(200);
    const revokedAt = Date.now();
    const endedAfter = await Promise.all(
      streams.map(async (s) => {
        while ((await s.next()) !== undefined) {
          /* no event is expected; whatever came before the end is skipped */
        }
        return Date.now() - revokedAt;
      }),
    );
    for (const ms of endedAfter) expect(ms).toBeLessThan(REVOKED_STREAM_ENDS_WITHIN_MS);
    // Its reconnect is refused; the other user's stream is still open (its own reconnect is not needed).
    const again = await stream(second.baseUrl, key);
    expect(again.status).toBe(401);
    const otherAgain = await stream(fleet.baseUrl, other.key);
    expect(otherAgain.status).toBe(200);
  });

  it('answers a job stream resumed at or past its terminal event with 204, holding no slot', async () => {
    const u = await userWithKey(fleet, 'jobs:read,image:write', 1000);
    const submitted = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key: u.key,
      body: { prompt: 'resume past the end' },
    });
    expect(submitted.status).toBe(202);
    const jobId: string = submitted.body.job_id;
    expect((await waitForJob(fleet, u.key, jobId)).status).toBe('completed');
    const log = await api(fleet, 'GET', '/api/v1/events', { key: u.key });
    const terminal: string = log.body.events.find(
      (e: { job_id: string; type: string }) => e.job_id === jobId && e.type === 'job.completed',
    ).id;

    for (const lastEventId of [terminal, 'evt_9999999999999999']) {
      for (const gateway of [fleet.baseUrl, second.baseUrl]) {
        const s = await stream(gateway, u.key, `/api/v1/jobs/${jobId}/events`, lastEventId);
        expect(s.status).toBe(204);
      }
    }
    // None of those four took a slot: the user's cap of 3 still admits 3.
    for (let i = 0; i < PER_USER; i++) expect((await stream(second.baseUrl, u.key)).status).toBe(200);
  });

  it("caps a user's open streams over two keys and both gateways, other users unaffected", async () => {
    const u = await userWithKey(fleet, 'jobs:read');
    const secondKey = String((await fleet.admin('key:create', '--email', u.email, '--scopes', 'jobs:read')).key);
    expect((await stream(fleet.baseUrl, u.key)).status).toBe(200);
    expect((await stream(second.baseUrl, u.key)).status).toBe(200);
    const third = await stream(second.baseUrl, secondKey);
    expect(third.status).toBe(200);

    for (const [gateway, key] of [
      [fleet.baseUrl, secondKey],
      [second.baseUrl, u.key],
    ] as const) {
      const refused = await stream(gateway, key);
      expect([refused.status, refused.body]).toEqual([429, USER_CAP_429]);
    }
    // Another user is not affected.
    const other = await userWithKey(fleet, 'jobs:read');
    expect((await stream(fleet.baseUrl, other.key)).status).toBe(200);
  });
});
