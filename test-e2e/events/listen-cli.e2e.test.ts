import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '@mf/fleet';
import { api, startFleet, userWithKey, type Fleet, type TestUser } from '../support/fleet';
import { eventually } from '../support/jobs';
import { startReceiver, verifySignature } from '../support/webhook-receiver';

/** `mediaforge listen --forward-to <url>` against the started fleet (docs/sdk.md, docs/events.md). */
describe('mediaforge listen', () => {
  let fleet: Fleet;
  let user: TestUser;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    fleet = await startFleet({ RATE_LIMIT_PER_MINUTE: '100000' });
    user = await userWithKey(fleet, 'image:write,jobs:read', 5_000);
  }, 240_000);
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGTERM');
    await fleet?.shutdown();
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
      // The stream is open once the gateway counts it; give it the first job after that.
      await new Promise((r) => setTimeout(r, 1500));

      const res = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key: user.key,
        body: { prompt: 'a paper crane' },
      });
      expect(res.status).toBe(202);
      const jobId = res.body.job_id as string;
      expect(await eventually(() => receiver.received.length >= 2, 60_000)).toBe(true);

      const bodies = receiver.received.map(
        (r) => JSON.parse(r.rawBody) as { type: string; job_id: string; id: string },
      );
      expect(bodies.map((b) => [b.type, b.job_id])).toEqual([
        ['job.processing', jobId],
        ['job.completed', jobId],
      ]);
      for (const r of receiver.received) {
        expect(verifySignature(secret, r.headers['x-service-signature'] as string, r.rawBody)).toBe(true);
        expect(r.headers['x-service-event-id']).toMatch(/^evt_\d{16}$/);
      }
      expect(await eventually(() => stdout.trim().split('\n').length >= 2)).toBe(true);
      const lines = stdout.trim().split('\n');
      expect(lines[0]).toContain(`job.processing ${jobId} ${bodies[0].id} -> 204`);
      expect(lines[1]).toContain(`job.completed ${jobId} ${bodies[1].id} -> 204`);
    } finally {
      child?.kill('SIGTERM');
      await receiver.close();
    }
  });
});
