import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Bus } from '@mf/bus';
import type { ImportUploadRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { createHttpApp, finish, jsonBody } from '@mf/http';
import { createStorage, type Storage } from '@mf/storage';
import { silentLogger } from '@mf/testing';
import { unlessUpload } from '../src/api/api.router';
import { operationHandlers, type OperationDeps } from '../src/api/operations.handlers';
import { operationsRouter } from '../src/api/operations.router';
import type { Streams } from '../src/api/sse/streams';

const PROJECT = 'prj_mine';
const MAX_BYTES = 200_000;

/**
 * Uploads through the operation table's router (with the JSON body parser as /api/v1 mounts it),
 * the multipart parser and local media storage; editor-agent is a stand-in on the RPC contract that
 * records what it was asked to import (its probing has its own tests).
 */
describe('uploading media into a project', () => {
  let dir: string;
  let storage: Storage;
  let server: http.Server;
  let base: string;
  const imported: ImportUploadRequest[] = [];
  const files: Record<string, string> = {};

  // Only the two methods an upload calls; anything else would be a test error (hence the cast).
  const bus = {
    rpc: async (_service: unknown, method: string, req: { project_id: string }) => {
      if (req.project_id !== PROJECT) throw AppError.notFound('Project not found');
      if (method === 'getProject') return { project: { id: PROJECT } };
      if (method === 'importUpload') {
        const upload = req as ImportUploadRequest;
        imported.push(upload);
        const stored = await storage.stat(upload.storage_key);
        // As editor-agent does once the file is recorded.
        await storage.delete(upload.storage_key);
        return { asset: { id: 'ast_1', content_type: upload.content_type, bytes: stored?.size ?? null } };
      }
      if (method === 'importJobAsset')
        return {
          imported_job: { job_id: (req as { job_id?: string }).job_id, index: (req as { index?: number }).index },
        };
      throw new Error(`unexpected rpc ${method}`);
    },
  } as unknown as Bus;

  const ff = (name: string, args: string[]) => {
    const out = path.join(dir, name);
    execFileSync('ffmpeg', ['-v', 'error', ...args, '-y', out]);
    return out;
  };
  /** Every file left under the storage's root (objects, metadata and partial writes alike). */
  const stagedObjects = () =>
    fs
      .readdirSync(path.join(dir, 'media'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.startsWith('check-'))
      .map((e) => e.name);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-upload-int-'));
    storage = createStorage({ driver: 'local', dir: path.join(dir, 'media') });
    const video = ['-f', 'lavfi', '-i', 'testsrc=s=64x36:d=0.5:r=10'];
    const tone = ['-f', 'lavfi', '-i', 'sine=d=0.3'];
    const still = ['-f', 'lavfi', '-i', 'color=c=red:s=32x32', '-frames:v', '1'];
    files.mp4 = ff('a.mp4', [...video, '-pix_fmt', 'yuv420p', '-c:v', 'libx264']);
    files.mov = ff('a.mov', [...video, '-pix_fmt', 'yuv420p', '-c:v', 'libx264']);
    files.webm = ff('a.webm', [...video, '-c:v', 'libvpx']);
    files.png = ff('a.png', still);
    files.jpeg = ff('a.jpg', still);
    files.webp = ff('a.webp', still);
    files.mp3 = ff('a.mp3', [...tone, '-c:a', 'libmp3lame']);
    files.wav = ff('a.wav', tone);
    files.m4a = ff('a.m4a', [...tone, '-c:a', 'aac']);
    files.big = ff('big.wav', ['-f', 'lavfi', '-i', 'sine=d=5']);
    files.text = path.join(dir, 'notes.txt');
    fs.writeFileSync(files.text, 'These are notes, not a video.\n'.repeat(20));

    const app = createHttpApp({ logger: silentLogger() });
    app.use((req, _res, next) => {
      req.auth = { userId: 1, apiKeyId: 1, scopes: ['video-editor:write'] };
      next();
    });
    app.use('/api/v1', unlessUpload(jsonBody('1mb')));
    const deps = {
      bus,
      storage,
      uploadMaxBytes: MAX_BYTES,
      falEndpoints: {},
      submitTimeoutMs: 1000,
      instructTimeoutMs: 1000,
      exportTimeoutMs: 1000,
      importTimeoutMs: 1000,
      publicBaseUrl: 'https://api.test',
      webhookTestTimeoutMs: 1000,
      streams: {} as Streams,
      logger: silentLogger(),
    } as OperationDeps;
    app.use('/api/v1', operationsRouter(operationHandlers(deps)));
    finish(app, silentLogger());
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    imported.length = 0;
  });

  /** Sends a file as the `file` field, under any name and declared type. */
  const upload = async (file: string, name: string, type: string, project = PROJECT) => {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(file)], { type }), name);
    const res = await fetch(`${base}/api/v1/media-studio/projects/${project}/assets`, { method: 'POST', body: form });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it.each<[string, string]>([
    ['mp4', 'video/mp4'],
    ['mov', 'video/quicktime'],
    ['webm', 'video/webm'],
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['webp', 'image/webp'],
    ['mp3', 'audio/mpeg'],
    ['wav', 'audio/wav'],
    ['m4a', 'audio/mp4'],
  ])('accepts %s told by its bytes, whatever its name and declared type', async (kind, type) => {
    const { status, body } = await upload(files[kind], 'renamed.bin', 'application/octet-stream');
    expect(status).toBe(200);
    expect(body).toEqual({ asset: { id: 'ast_1', content_type: type, bytes: fs.statSync(files[kind]).size } });
    expect(imported).toEqual([
      expect.objectContaining({ project_id: PROJECT, content_type: type, filename: 'renamed.bin' }),
    ]);
    expect(imported[0].storage_key).toMatch(/^uploads\/[\w-]+\.\w+$/);
  });

  it('refuses a text file renamed and declared as a video with a 415, storing nothing', async () => {
    const { status, body } = await upload(files.text, 'clip.mp4', 'video/mp4');
    expect(status).toBe(415);
    expect(body.error).toMatch(/^Unsupported media type: /);
    expect(imported).toEqual([]);
    expect(stagedObjects()).toEqual([]);
  });

  it('refuses a file over IMPORT_MAX_BYTES with a 413, storing nothing', async () => {
    expect(fs.statSync(files.big).size).toBeGreaterThan(MAX_BYTES);
    const { status, body } = await upload(files.big, 'long.wav', 'audio/wav');
    expect(status).toBe(413);
    expect(body).toEqual({ error: `The file is larger than ${MAX_BYTES} bytes` });
    expect(imported).toEqual([]);
    expect(stagedObjects()).toEqual([]);
  });

  it('answers 404 for a project the caller cannot use, before storing anything', async () => {
    const { status } = await upload(files.png, 'a.png', 'image/png', 'prj_theirs');
    expect(status).toBe(404);
    expect(stagedObjects()).toEqual([]);
  });

  it('answers 400 for a multipart body without a file field', async () => {
    const form = new FormData();
    form.append('note', 'no file');
    const res = await fetch(`${base}/api/v1/media-studio/projects/${PROJECT}/assets`, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'file is required (multipart/form-data field "file")' });
  });

  it("leaves a JSON body to the job import, and refuses multipart on other operations' routes", async () => {
    const res = await fetch(`${base}/api/v1/media-studio/projects/${PROJECT}/assets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ job_id: 'job_1', index: 3 }),
    });
    expect(await res.json()).toEqual({ imported_job: { job_id: 'job_1', index: 3 } });
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(files.png)]), 'a.png');
    const clip = await fetch(`${base}/api/v1/media-studio/projects/${PROJECT}/clips`, { method: 'POST', body: form });
    expect(clip.status).toBe(415);
  });
});
