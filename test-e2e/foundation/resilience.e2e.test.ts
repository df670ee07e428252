import { api, startFleet, userWithKey, type Fleet, type TestUser } from '../support/fleet';

describe('the fleet when a service stops', () => {
  let fleet: Fleet;
  let user: TestUser;

  beforeAll(async () => {
    fleet = await startFleet();
    user = await userWithKey(fleet, 'all', 500);
  }, 180_000);

  afterAll(async () => {
    await fleet?.shutdown();
  });

  it('answers a JSON 5xx within a few seconds while billing is down, and recovers without a gateway restart', async () => {
    expect((await api(fleet, 'GET', '/api/v1/account', { key: user.key })).status).toBe(200);

    expect(await fleet.stopService('billing', 'SIGKILL')).toBe('SIGKILL');
    const started = Date.now();
    const down = await api(fleet, 'GET', '/api/v1/account', { key: user.key });
    const waited = Date.now() - started;
    expect(down.status).toBeGreaterThanOrEqual(500);
    expect(down.status).toBeLessThan(600);
    expect(down.body).toMatchObject({ error: expect.any(String), request_id: expect.any(String) });
    expect(down.headers.get('retry-after')).not.toBeNull();
    // No hang: the RPC timeout (3 s here) bounds it. The bound is loose on purpose (a loaded CI box).
    expect(waited).toBeLessThan(15_000);

    // Endpoints that do not need billing keep working.
    expect((await api(fleet, 'GET', '/api/v1/models', { key: user.key })).status).toBe(200);

    await fleet.startService('billing');
    const back = await api(fleet, 'GET', '/api/v1/account', { key: user.key });
    expect(back.status).toBe(200);
    expect(back.body.credits_remaining).toBe(500);
  }, 120_000);

  it('stops every service cleanly on SIGTERM (exit code 0)', async () => {
    const codes = await fleet.shutdown();
    expect(codes).toEqual({
      billing: 0,
      jobs: 0,
      'editor-agent': 0,
      'export-renderer': 0,
      'webhook-dispatcher': 0,
      gateway: 0,
    });
    fleet = undefined as unknown as Fleet;
  }, 60_000);
});
