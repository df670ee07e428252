import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { Bus } from '@mf/bus';
import { exportsRpc } from '@mf/contracts';
import type { AppError } from '@mf/errors';
import { silentLogger } from '@mf/testing';
import { serveExportsRpc } from '../src/messaging/exports-rpc.server';
import { clip, createHarness, renderRequest, type Harness } from './support/export-harness';

jest.setTimeout(180_000);

let h: Harness;
let client: Bus;
beforeAll(async () => {
  h = await createHarness();
  await h.put('assets/still.png', h.sources.still);
  client = new Bus({ url: h.env.amqpUrl, service: 'editor-agent', logger: silentLogger(), rpcTimeoutMs: 60_000 });
  await client.start();
});
afterAll(async () => {
  await client?.close();
  await h?.teardown();
});

const still = () => [clip('video', 0, 'assets/still.png', { kind: 'image', duration_sec: 0.5 })];

describe('exports.render over the bus', () => {
  it('answers the editor with a RenderReply, and an export error with its code, message and Retry-After intact', async () => {
    // Served in this process for this test only: the next test has the real process consume the queue.
    const server = new Bus({ url: h.env.amqpUrl, service: 'export-renderer', logger: silentLogger() });
    await server.start();
    try {
      await serveExportsRpc(server, h.context({ EXPORT_RATE_LIMIT: '1' }));
      const req = renderRequest(still());

      const reply = await client.rpc(exportsRpc, 'render', req);
      const refused = (await client
        .rpc(exportsRpc, 'render', { ...renderRequest(still()), user_id: req.user_id })
        .catch((err: unknown) => err)) as AppError;

      expect(reply).toEqual({
        output_key: req.output_key,
        duration_sec: 0.5,
        video_clip_count: 1,
        audio_overlay_count: 0,
        width: 180,
        height: 320,
        bytes: expect.any(Number),
      });
      expect((await h.storage.stat(req.output_key))?.size).toBe(reply.bytes);
      expect({ kind: refused.kind, body: refused.body }).toEqual({
        kind: 'rate_limited',
        body: { error: 'rate_limited', message: 'Too many exports in the last minute. Try again shortly.' },
      });
      expect(refused.details.retryAfterSec).toBeGreaterThanOrEqual(1);
    } finally {
      await server.close();
    }
  });
});

describe('the export-renderer process', () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    // Only the process this test started, by its pid.
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('starts while storage is unreachable and answers each export with 503 storage_unconfigured', async () => {
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../src/main.ts')], {
      cwd: path.join(__dirname, '..'),
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: h.env.databaseUrl,
        AMQP_URL: h.env.amqpUrl,
        LOG_LEVEL: 'warn',
        EXPORT_CACHE_DIR: path.join(h.workRoot, '..', 'process-cache'),
        EXPORT_WORK_DIR: path.join(h.workRoot, '..', 'process-work'),
        STORAGE_DRIVER: 's3',
        // Nothing listens on port 9: every storage call fails at once.
        S3_ENDPOINT: 'http://127.0.0.1:9',
        S3_ACCESS_KEY: 'x',
        S3_SECRET_KEY: 'y',
      },
      stdio: 'ignore',
    });
    await waitUntilReady(port, child);

    const err = (await client.rpc(exportsRpc, 'render', renderRequest(still())).catch((e: unknown) => e)) as AppError;
    expect({ kind: err.kind, body: err.body }).toEqual({
      kind: 'unavailable',
      body: { error: 'storage_unconfigured', message: 'Export storage is unavailable right now. Try again later.' },
    });
  });
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

async function waitUntilReady(port: number, proc: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (proc.exitCode !== null) throw new Error(`export-renderer exited with ${proc.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('export-renderer never became ready');
}
