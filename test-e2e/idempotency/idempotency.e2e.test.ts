import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { api, startFleet, userWithKey, type Fleet, type TestUser } from '../support/fleet';
import { balance, waitForJob } from '../support/jobs';
import { pooledFleet, type PooledFleet } from '../support/pool';

const IMAGE = '/api/v1/image/imagegen/generate';
const PROJECTS = '/api/v1/media-studio/projects';
const replayed = (res: { headers: Headers }) => res.headers.get('idempotent-replayed');
const REUSED =
  'Idempotency-Key has already been used with a different request (endpoint or body); use a new key for a new request';

/** The Idempotency-Key header against the real fleet (local provider): one job, one charge per key. */
describe('Idempotency-Key', () => {
  let fleet: PooledFleet;
  let db: Client;

  beforeAll(async () => {
    fleet = await pooledFleet();
    db = new Client({ connectionString: fleet.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
  });

  const charges = async (user: TestUser): Promise<number> =>
    (
      await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM billing.ledger WHERE user_id = $1 AND kind = 'charge'",
        [user.userId],
      )
    ).rows[0].n;
  const withKey = (key: string, user: TestUser, body: unknown) => ({
    key: user.key,
    body,
    headers: { 'Idempotency-Key': key },
  });

  it('makes one job and one charge of two identical generate requests sent together with one key', async () => {
    const user = await userWithKey(fleet, 'all', 1000);
    const before = await balance(fleet, user.key);
    const key = randomUUID();
    const body = { prompt: 'a lighthouse at dusk', seed: 3 };
    const [a, b] = await Promise.all([
      api(fleet, 'POST', IMAGE, withKey(key, user, body)),
      api(fleet, 'POST', IMAGE, withKey(key, user, body)),
    ]);
    expect(a.status).toBe(202);
    expect(b.status).toBe(a.status);
    expect(b.body).toEqual(a.body);
    expect(JSON.stringify(b.body)).toBe(JSON.stringify(a.body));
    expect([replayed(a), replayed(b)].filter((v) => v === 'true')).toHaveLength(1);
    expect(a.body).toMatchObject({ status: 'processing', credits_consumed: 50, credits_remaining: before - 50 });

    // A later retry, with the body's keys in another order, replays too.
    const later = await api(fleet, 'POST', IMAGE, withKey(key, user, { seed: 3, prompt: 'a lighthouse at dusk' }));
    expect([later.status, replayed(later)]).toEqual([202, 'true']);
    expect(later.body).toEqual(a.body);

    expect(await balance(fleet, user.key)).toBe(before - 50);
    expect(await charges(user)).toBe(1);
    expect(await waitForJob(fleet, user.key, a.body.job_id)).toMatchObject({ status: 'completed' });
  });

  it('refuses the same key with a different body with a 422, charging nothing', async () => {
    const user = await userWithKey(fleet, 'all', 1000);
    const key = randomUUID();
    const first = await api(fleet, 'POST', IMAGE, withKey(key, user, { prompt: 'a red fox' }));
    expect(first.status).toBe(202);
    const other = await api(fleet, 'POST', IMAGE, withKey(key, user, { prompt: 'a red fox', num_images: 2 }));
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ error: REUSED });
    const otherEndpoint = await api(
      fleet,
      'POST',
      '/api/v1/video/vidgen-2/generate',
      withKey(key, user, { prompt: 'a red fox' }),
    );
    expect([otherEndpoint.status, otherEndpoint.body]).toEqual([422, { error: REUSED }]);
    expect(await balance(fleet, user.key)).toBe(950);
    expect(await charges(user)).toBe(1);
  });

  it('gives another user with the same key a job of their own', async () => {
    const alice = await userWithKey(fleet, 'all', 1000);
    const bob = await userWithKey(fleet, 'all', 1000);
    const key = randomUUID();
    const body = { prompt: 'two moons' };
    const a = await api(fleet, 'POST', IMAGE, withKey(key, alice, body));
    const b = await api(fleet, 'POST', IMAGE, withKey(key, bob, body));
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(replayed(b)).toBeNull();
    expect(b.body.job_id).not.toBe(a.body.job_id);
    expect(await balance(fleet, bob.key)).toBe(950);
    expect(await charges(bob)).toBe(1);
  });

  it('creates one project for two create-project requests with one key', async () => {
    const user = await userWithKey(fleet, 'video-editor:read,video-editor:write');
    const key = randomUUID();
    const first = await api(fleet, 'POST', PROJECTS, withKey(key, user, { name: 'Launch video' }));
    const again = await api(fleet, 'POST', PROJECTS, withKey(key, user, { name: 'Launch video' }));
    expect(first.status).toBe(200);
    expect([again.status, replayed(again)]).toEqual([200, 'true']);
    expect(again.body).toEqual(first.body);
    const list = await api(fleet, 'GET', PROJECTS, { key: user.key });
    expect(list.body.projects.map((p: { id: string }) => p.id)).toEqual([first.body.project.id]);
  });

  it('lets a request refused by validation be fixed and retried with the same key', async () => {
    const user = await userWithKey(fleet, 'all', 1000);
    const key = randomUUID();
    const refused = await api(fleet, 'POST', IMAGE, withKey(key, user, { prompt: 'x', num_images: 9 }));
    expect(refused.status).toBe(400);
    const fixed = await api(fleet, 'POST', IMAGE, withKey(key, user, { prompt: 'x', num_images: 1 }));
    expect([fixed.status, replayed(fixed)]).toEqual([202, null]);
  });

  it('refuses a key longer than 255 characters', async () => {
    const user = await userWithKey(fleet, 'all', 1000);
    const res = await api(fleet, 'POST', IMAGE, withKey('k'.repeat(256), user, { prompt: 'x' }));
    expect([res.status, res.body]).toEqual([400, { error: 'Idempotency-Key must be 1-255 characters' }]);
    expect(await charges(user)).toBe(0);
  });
});

/**
 * The retry the key exists for: the submit's outcome is unknown to the client (503: billing did not
 * answer within the gateway's submit timeout), but the charge does land a moment later. A retry
 * with the same key gets that job, not a second job and a second charge.
 */
describe('Idempotency-Key across a 503 whose submit went through after all', () => {
  let fleet: Fleet;
  let db: Client;

  beforeAll(async () => {
    // The gateway gives up on a submit after 1 s; jobs waits for billing up to RPC_TIMEOUT_MS (3 s).
    // Should the charge miss jobs' wait on a very busy machine, the sweeper rejects the stuck submit
    // after 5 s and the retry submits afresh: still one live job and one kept charge.
    fleet = await startFleet({
      RATE_LIMIT_PER_MINUTE: '100000',
      SUBMIT_TIMEOUT_MS: '1000',
      SUBMIT_STUCK_AFTER_MS: '5000',
    });
    db = new Client({ connectionString: fleet.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    fleet?.resumeService('billing');
    await db?.end();
    await fleet?.shutdown();
  });

  it('answers the retry of a 503 with the job the first attempt made, charged once', async () => {
    const user = await userWithKey(fleet, 'all', 1000);
    const key = randomUUID();
    const body = { prompt: 'a slow charge', seed: 5 };

    fleet.pauseService('billing');
    const first = await api(fleet, 'POST', IMAGE, { key: user.key, body, headers: { 'Idempotency-Key': key } });
    fleet.resumeService('billing'); // the charge still in the queue lands now, and the submit completes
    expect(first.status).toBe(503);
    expect(replayed(first)).toBeNull();

    let retry = await api(fleet, 'POST', IMAGE, { key: user.key, body, headers: { 'Idempotency-Key': key } });
    for (let i = 0; retry.status === 503 && i < 120; i++) {
      await new Promise((r) => setTimeout(r, 250)); // the first submit is still between charge and provider
      retry = await api(fleet, 'POST', IMAGE, { key: user.key, body, headers: { 'Idempotency-Key': key } });
    }
    expect(retry.status).toBe(202);

    const jobs = (
      await db.query<{ id: string }>("SELECT id FROM jobs.jobs WHERE user_id = $1 AND status <> 'rejected'", [
        user.userId,
      ])
    ).rows;
    expect(jobs).toHaveLength(1);
    expect(retry.body.job_id).toBe(jobs[0].id);
    expect(await waitForJob(fleet, user.key, jobs[0].id)).toMatchObject({ status: 'completed' });
    // One charge kept (a rejected first attempt, if any, is refunded in full), so one job's price paid.
    const kept = (
      await db.query<{ reference: string }>(
        "SELECT c.reference FROM billing.ledger c WHERE c.user_id = $1 AND c.kind = 'charge' AND NOT EXISTS (SELECT 1 FROM billing.ledger r WHERE r.reference = c.reference AND r.kind = 'refund')",
        [user.userId],
      )
    ).rows;
    expect(kept.map((r) => r.reference)).toEqual([`job:${jobs[0].id}`]);
    expect(await balance(fleet, user.key)).toBe(950);

    // From now on the key replays that 202.
    const again = await api(fleet, 'POST', IMAGE, { key: user.key, body, headers: { 'Idempotency-Key': key } });
    expect([again.status, replayed(again), again.body]).toEqual([202, 'true', retry.body]);
  });
});
