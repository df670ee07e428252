import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@mf/fleet';
import { api, userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { eventually, waitForJob } from '../support/jobs';
import { startReceiver, verifySignature, type ReceivedWebhook } from '../support/webhook-receiver';
import { sdkCli } from '../support/sdk-cli';

const run = promisify(execFile);

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

  it('forwards each event exactly as its webhook delivery is sent, signed with the printed session secret; a triggered test event reaches it and the endpoint alike', async () => {
    const listener = await startReceiver(() => 204);
    const endpoint = await startReceiver(() => 200);
    try {
      // A real webhook endpoint of the same key: its deliveries are what listen must reproduce.
      const hook = await api(fleet, 'PUT', '/api/v1/webhook', { key: user.key, body: { url: endpoint.url } });
      expect(hook.status).toBe(201);
      const endpointSecret = String(hook.body.secret);
      const cli = sdkCli();
      const cliEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MEDIAFORGE_API_KEY: user.key,
        MEDIAFORGE_BASE_URL: fleet.baseUrl,
      };
      child = spawn(
        process.execPath,
        [...cli, 'listen', '--forward-to', listener.url, '--events', 'job.processing,job.completed'],
        { cwd: REPO_ROOT, env: cliEnv },
      );
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      expect(await eventually(() => /whsec_[A-Za-z0-9_-]+/.test(stderr), 60_000)).toBe(true);
      const secret = /whsec_[A-Za-z0-9_-]+/.exec(stderr)![0];
      const eventOf = (r: ReceivedWebhook) => String(r.headers['x-service-event']);
      const jobOf = (r: ReceivedWebhook) => (JSON.parse(r.rawBody) as { job_id: string }).job_id;
      // The stream starts with the next event, and nothing says when it is open: a probe job whose
      // events come through proves it is. Each probe runs to its end before the next, so one that
      // the stream missed is simply followed by another.
      const forwarded = (id: string) =>
        listener.received.some((r) => jobOf(r) === id && eventOf(r) === 'job.completed');
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
      expect(await eventually(() => stdout.trim().split('\n').length >= listener.received.length)).toBe(true);
      const seen = { requests: listener.received.length, lines: stdout.trim().split('\n').length };

      const res = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key: user.key,
        body: { prompt: 'a paper crane' },
      });
      expect(res.status).toBe(202);
      const jobId = res.body.job_id as string;
      expect(await eventually(() => listener.received.length >= seen.requests + 2, 60_000)).toBe(true);
      expect(
        await eventually(
          () => endpoint.received.some((r) => jobOf(r) === jobId && eventOf(r) === 'job.completed'),
          60_000,
        ),
      ).toBe(true);

      const got = listener.received.slice(seen.requests);
      expect(got.map((r) => [eventOf(r), jobOf(r)])).toEqual([
        ['job.processing', jobId],
        ['job.completed', jobId],
      ]);
      // The listen-only event carries the Job object as the stream shows it.
      expect(JSON.parse(got[0].rawBody)).toMatchObject({ job_id: jobId, status: 'processing' });

      // The completed event: byte for byte what the real delivery of the same event carried.
      const real = endpoint.received.find((r) => jobOf(r) === jobId && eventOf(r) === 'job.completed')!;
      const local = got[1];
      expect(local.rawBody).toBe(real.rawBody);
      const compared = ['content-type', 'user-agent', 'x-service-event', 'x-service-event-id'];
      const pick = (r: ReceivedWebhook) => Object.fromEntries(compared.map((h) => [h, r.headers[h]]));
      expect(pick(local)).toEqual(pick(real));
      expect(local.headers['x-service-delivery-attempt']).toBe('1');
      expect(local.headers['x-service-timestamp']).toMatch(/^\d+$/);
      expect(verifySignature(secret, local.headers['x-service-signature'] as string, local.rawBody)).toBe(true);
      expect(verifySignature(endpointSecret, real.headers['x-service-signature'] as string, real.rawBody)).toBe(true);
      for (const r of listener.received) {
        // Probes too: every forwarded event is signed with the session secret.
        expect(verifySignature(secret, r.headers['x-service-signature'] as string, r.rawBody)).toBe(true);
        expect(r.headers['x-service-event-id']).toMatch(/^evt_\d{16}$/);
      }
      expect(await eventually(() => stdout.trim().split('\n').length >= seen.lines + 2)).toBe(true);
      const lines = stdout.trim().split('\n').slice(seen.lines);
      expect(lines[0]).toContain(`job.processing ${jobId} ${String(got[0].headers['x-service-event-id'])} -> 204`);
      expect(lines[1]).toContain(`job.completed ${jobId} ${String(got[1].headers['x-service-event-id'])} -> 204`);

      // `mediaforge trigger` goes the same way as a real event: the log, then both receivers, the
      // endpoint whatever its filter (here it takes job.failed only), each signed with its own secret.
      const filtered = await api(fleet, 'PUT', '/api/v1/webhook', {
        key: user.key,
        body: { url: endpoint.url, events: ['job.failed'] },
      });
      expect(filtered.status).toBe(200);
      const { stdout: triggered } = await run(process.execPath, [...cli, 'trigger', 'job.completed'], {
        cwd: REPO_ROOT,
        env: cliEnv,
      });
      const { event } = JSON.parse(triggered) as {
        event: { id: string; type: string; job_id: string; test: boolean; webhook_body: string };
      };
      expect(event).toMatchObject({ type: 'job.completed', test: true, job_id: expect.stringMatching(/^job_test/) });
      const byId = (r: ReceivedWebhook) => r.headers['x-service-event-id'] === event.id;
      expect(await eventually(() => listener.received.some(byId) && endpoint.received.some(byId), 60_000)).toBe(true);
      const forwardedTest = listener.received.find(byId)!;
      const deliveredTest = endpoint.received.find(byId)!;
      expect(forwardedTest.rawBody).toBe(deliveredTest.rawBody);
      expect(forwardedTest.rawBody).toBe(event.webhook_body);
      const testHeaders = [...compared, 'x-service-test', 'x-service-delivery-attempt'];
      const pickTest = (r: ReceivedWebhook) => Object.fromEntries(testHeaders.map((h) => [h, r.headers[h]]));
      expect(pickTest(forwardedTest)).toEqual(pickTest(deliveredTest));
      expect(forwardedTest.headers['x-service-test']).toBe('true');
      expect(
        verifySignature(secret, forwardedTest.headers['x-service-signature'] as string, forwardedTest.rawBody),
      ).toBe(true);
      expect(
        verifySignature(endpointSecret, deliveredTest.headers['x-service-signature'] as string, deliveredTest.rawBody),
      ).toBe(true);
      // The endpoint's log records it as a test attempt.
      const log = await api(fleet, 'GET', '/api/v1/webhook/deliveries', { key: user.key });
      expect(log.body.deliveries).toContainEqual(
        expect.objectContaining({ event_id: event.id, event_type: 'job.completed', test: true, succeeded: true }),
      );
    } finally {
      child?.kill('SIGTERM');
      await api(fleet, 'DELETE', '/api/v1/webhook', { key: user.key });
      await listener.close();
      await endpoint.close();
    }
  });
});
