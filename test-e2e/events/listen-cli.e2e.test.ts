import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '@mf/fleet';
import { api, userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { eventually, waitForJob } from '../support/jobs';
import { startReceiver, verifySignature } from '../support/webhook-receiver';

/** `mediaforge listen --forward-to <url>` against the started fleet (docs/sdk.md, docs/events.md). */
describe('mediaforge listen', () => {
  let fleet: PooledFleet;
  let user: TestUser;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'image:write,jobs:read', 5_000);
  }, 240_000);
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGTERM');
  });

  it('forwards each job event to the local URL signed with the printed session secret, one line per event', async () => {
    const receiver = await startReceiver(() => 204);
    try {
      child = spawn(
        process.execPath,
        [
          '--import',
          pathToFileURL(require.resolve('tsx')).href,
          path.join(REPO_ROOT, 'sdk/src/cli.ts'),
          'listen',
          '--forward-to',
          receiver.url,
          '--events',
          'job.processing,job.completed',
        ],
        {
          cwd: REPO_ROOT,
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            MEDIAFORGE_API_KEY: user.key,
            MEDIAFORGE_BASE_URL: fleet.baseUrl,
          },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      expect(await eventually(() => /whsec_[A-Za-z0-9_-]+/.test(stderr), 60_000)).toBe(true);
      const secret = /whsec_[A-Za-z0-9_-]+/.exec(stderr)![0];
      // The stream starts with the next event, and nothing says when it is open: a probe job whose
      // events come through proves it is. Each probe runs to its end before the next, so one that
      // the stream missed is simply followed by another.
      const forwarded = (id: string) =>
        receiver.received.some((r) => {
          const b = JSON.parse(r.rawBody) as { type: string; job_id: string };
          return b.job_id === id && b.type === 'job.completed';
        });
      for (let probes = 0; ; probes++) {
        expect(probes).toBeLessThan(10);
        const probe = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
          key: user.key,
          body: { prompt: 'a probe' },
        });
        expect(probe.status).toBe(202);
        await waitForJob(fleet, user.key, probe.body.job_id as string);
        if (await eventually(() => forwarded(probe.body.job_id as string), 5_000)) break;
      }
      expect(await eventually(() => stdout.trim().split('\n').length >= receiver.received.length)).toBe(true);
      const seen = { requests: receiver.received.length, lines: stdout.trim().split('\n').length };

      const res = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key: user.key,
        body: { prompt: 'a paper crane' },
      });
      expect(res.status).toBe(202);
      const jobId = res.body.job_id as string;
      expect(await eventually(() => receiver.received.length >= seen.requests + 2, 60_000)).toBe(true);

      const bodies = receiver.received
        .slice(seen.requests)
        .map((r) => JSON.parse(r.rawBody) as { type: string; job_id: string; id: string });
      expect(bodies.map((b) => [b.type, b.job_id])).toEqual([
        ['job.processing', jobId],
        ['job.completed', jobId],
      ]);
      for (const r of receiver.received) {
        // Probes too: every forwarded event is signed with the session secret.
        expect(verifySignature(secret, r.headers['x-service-signature'] as string, r.rawBody)).toBe(true);
        expect(r.headers['x-service-event-id']).toMatch(/^evt_\d{16}$/);
      }
      expect(await eventually(() => stdout.trim().split('\n').length >= seen.lines + 2)).toBe(true);
      const lines = stdout.trim().split('\n').slice(seen.lines);
      expect(lines[0]).toContain(`job.processing ${jobId} ${bodies[0].id} -> 204`);
      expect(lines[1]).toContain(`job.completed ${jobId} ${bodies[1].id} -> 204`);
    } finally {
      child?.kill('SIGTERM');
      await receiver.close();
    }
  });
});
