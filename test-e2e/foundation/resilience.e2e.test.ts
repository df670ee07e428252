import fs from 'node:fs';
import path from 'node:path';
import { SERVICES } from '@mf/fleet';
import { freePort } from '@mf/testing';
import { api, startFleet, userWithKey, type Fleet, type TestUser } from '../support/fleet';

/** The lines of a service's log with message `msg`. */
function logLines(fleet: Fleet, service: string, msg: string): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(fleet.logDir, `${service}.log`), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === msg);
}

describe('the fleet when a service stops', () => {
  let fleet: Fleet;
  let user: TestUser;
  let deadNode: string;

  beforeAll(async () => {
    // AMQP_URL lists a broker node that is down first: the fleet has to start on the next one.
    deadNode = `127.0.0.1:${await freePort()}`;
    fleet = await startFleet({}, { amqpUrl: (url) => `${url.replace(/@[^/]+\//, `@${deadNode}/`)},${url}` });
    user = await userWithKey(fleet, 'all', 500);
  }, 180_000);

  afterAll(async () => {
    await fleet?.shutdown();
  });

  it('starts every service on the next broker node when the first in AMQP_URL is down, and serves requests', async () => {
    expect(fleet.env.AMQP_URL?.split(',')).toHaveLength(2);
    for (const { name } of SERVICES) {
      const skipped = logLines(fleet, name, 'broker node did not answer; trying the next');
      expect({ name, node: String(skipped[0]?.node) }).toEqual({ name, node: expect.stringContaining(deadNode) });
      const connected = logLines(fleet, name, 'connected to broker');
      expect({ name, node: String(connected[0]?.node) }).toEqual({
        name,
        node: expect.not.stringContaining(deadNode),
      });
    }
    expect((await api(fleet, 'GET', '/api/v1/account', { key: user.key })).status).toBe(200);
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
