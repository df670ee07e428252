import { DashboardSession } from '../support/dashboard-session';
import { api, startFleet, userWithKey, type Fleet, type Replica } from '../support/fleet';

const REFUSED = [401, { error: 'Invalid or revoked API key' }];

/**
 * Each gateway replica caches API key lookups (KEY_CACHE_TTL_MS); a revoked key must still fail at
 * once: the replica that revokes drops it before answering, every other one when the broker's
 * revocation event reaches it. The TTL here is far longer than the test, so only the event can
 * make the other replica refuse the key.
 */
describe('a revoked API key on two gateway replicas that cache key lookups', () => {
  let fleet: Fleet;
  let second: Replica;

  beforeAll(async () => {
    fleet = await startFleet({ KEY_CACHE_TTL_MS: '30000' });
    second = await fleet.startReplica('gateway');
  }, 240_000);

  afterAll(async () => {
    await fleet?.shutdown();
  });

  const account = async (gateway: Pick<Fleet, 'baseUrl'>, key: string) => {
    const res = await api(gateway, 'GET', '/api/v1/account', { key });
    return [res.status, res.status === 401 ? res.body : undefined];
  };

  /** The other replica hears of it one broker hop after the revoke answered: a few tries at most. */
  const refusedAfterTheEvent = async (gateway: Pick<Fleet, 'baseUrl'>, key: string) => {
    let answer = await account(gateway, key);
    for (let i = 0; i < 20 && answer[0] !== 401; i++) {
      await new Promise((r) => setTimeout(r, 50));
      answer = await account(gateway, key);
    }
    return answer;
  };

  /** Both replicas have looked the key up (and cached it). */
  const usedOnBoth = async (key: string) => {
    for (const gateway of [fleet, second, fleet, second]) expect((await account(gateway, key))[0]).toBe(200);
  };

  it('refuses a key revoked in the dashboard at once on the replica that revoked it, and on the other through the broker', async () => {
    const s = new DashboardSession(second.baseUrl);
    expect((await s.signUp(`revoker${Date.now()}@example.test`, 'a long enough password')).status).toBe(201);
    const created = await s.post('/keys', { body: { name: 'cached', scopes: [] } });
    expect(created.status).toBe(201);
    const key: string = created.body.secret_key;
    await usedOnBoth(key);

    expect((await s.delete(`/keys/${created.body.key.id}`)).status).toBe(200);
    expect(await account(second, key)).toEqual(REFUSED);
    expect(await refusedAfterTheEvent(fleet, key)).toEqual(REFUSED);
  });

  it('refuses a key revoked with the admin CLI on every replica', async () => {
    const u = await userWithKey(fleet, 'models:read');
    await usedOnBoth(u.key);
    await fleet.admin('key:revoke', '--id', String(u.keyId));
    expect(await refusedAfterTheEvent(fleet, u.key)).toEqual(REFUSED);
    expect(await refusedAfterTheEvent(second, u.key)).toEqual(REFUSED);
  });

  it('keeps serving the keys that were not revoked from either replica', async () => {
    const kept = await userWithKey(fleet, 'models:read');
    const revoked = await userWithKey(fleet, 'models:read');
    await usedOnBoth(kept.key);
    await usedOnBoth(revoked.key);
    await fleet.admin('key:revoke', '--id', String(revoked.keyId));
    expect(await refusedAfterTheEvent(second, revoked.key)).toEqual(REFUSED);
    for (const gateway of [fleet, second]) expect((await account(gateway, kept.key))[0]).toBe(200);
  });
});
