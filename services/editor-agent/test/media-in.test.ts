import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bus } from '@mf/bus';
import { jobsRpc, type JobResultReply } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { createStorage, type Storage } from '@mf/storage';
import { silentLogger } from '@mf/testing';
import { importJobAsset, importUpload } from '../src/usecases/media-in.usecase';
import type { EditorContext } from '../src/usecases/context';
import { createProject } from '../src/usecases/projects.usecase';
import { editorRecords, type EditorRecords } from './support/editor-records';

const OWNER = 41;
const OTHER = 42;

/** A job of the fake jobs service: whose it is, and what getResult answers for it. */
interface FakeJob {
  user: number;
  reply: JobResultReply;
}

/**
 * Importing a job's result: the editor asks the jobs service (a fake on the real bus contract)
 * for the job and copies the stored result from media storage, with no download.
 */
describe('media into a project: job results and uploads', () => {
  let records: EditorRecords;
  let jobsBus: Bus;
  let storage: Storage;
  let ctx: EditorContext;
  let dir: string;
  const jobs = new Map<string, FakeJob>();
  let downloads = 0;

  const job = (id: string, user: number, reply: Partial<JobResultReply>) =>
    jobs.set(id, {
      user,
      reply: {
        job_id: id,
        status: 'completed',
        type: 'image',
        result_keys: [],
        error: null,
        credits_consumed: 1,
        ...reply,
      },
    });

  beforeAll(async () => {
    records = await editorRecords();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-job-import-int-'));
    storage = createStorage({ driver: 'local', dir: path.join(dir, 'media') });
    const ff = (args: string[], out: string) => {
      execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', ...args, '-y', path.join(dir, out)]);
      return path.join(dir, out);
    };
    const png = ff(['-i', 'color=c=red:s=64x48', '-frames:v', '1'], 'a.png');
    const png2 = ff(['-i', 'color=c=blue:s=96x64', '-frames:v', '1'], 'b.png');
    const mp4 = ff(['-i', 'testsrc=s=160x90:d=1.5:r=25', '-pix_fmt', 'yuv420p', '-c:v', 'libx264'], 'v.mp4');
    await storage.putFile('jobs/job_img/0.png', png, 'image/png');
    await storage.putFile('jobs/job_img/1.png', png2, 'image/png');
    await storage.putFile('jobs/job_vid/0.mp4', mp4, 'video/mp4');
    job('job_img', OWNER, { type: 'image', result_keys: ['jobs/job_img/0.png', 'jobs/job_img/1.png'] });
    job('job_vid', OWNER, { type: 'video', result_keys: ['jobs/job_vid/0.mp4'] });
    job('job_processing', OWNER, { type: 'video', status: 'processing' });
    job('job_theirs', OTHER, { type: 'image', result_keys: ['jobs/job_img/0.png'] });

    jobsBus = new Bus({ url: records.env.amqpUrl, service: 'jobs', logger: silentLogger() });
    await jobsBus.start();
    // Only getResult is called in this flow; the fake serves nothing else (hence the cast).
    const handlers = {
      getResult: async (req: { user_id: number; job_id: string }) => {
        const found = jobs.get(req.job_id);
        // The jobs service answers alike for a missing job and another user's.
        if (!found || found.user !== req.user_id) throw AppError.notFound('Job not found');
        return found.reply;
      },
    };
    await jobsBus.serveRpc(jobsRpc, handlers as never);
    await records.bus.start();
    ctx = records.context({
      storage,
      download: async () => {
        downloads += 1;
        throw new Error('a job import must not download');
      },
    });
  });
  afterAll(async () => {
    await jobsBus?.close();
    await records?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const project = async (user = OWNER) =>
    (await createProject(ctx, { user_id: user, name: 'P', description: null, aspect_ratio: '16:9' })).project;

  it("imports the first image of the user's own completed job by default, probed, into the project's storage", async () => {
    const p = await project();
    const { asset } = await importJobAsset(ctx, { user_id: OWNER, project_id: p.id, job_id: 'job_img', index: 0 });
    expect(asset).toMatchObject({
      kind: 'image',
      source: 'import',
      url: expect.stringMatching(new RegExp(`^https://api\\.test/media/editor/${p.id}/ast_\\w+\\.png$`)),
      metadata: { width: 64, height: 48, duration_sec: null, job_id: 'job_img', index: 0 },
    });
    expect(downloads).toBe(0);
  });

  it('imports the image at the given index', async () => {
    const p = await project();
    const { asset } = await importJobAsset(ctx, { user_id: OWNER, project_id: p.id, job_id: 'job_img', index: 1 });
    expect(asset.metadata).toMatchObject({ width: 96, height: 64, index: 1 });
  });

  it("imports a video job's result as a video asset with its duration", async () => {
    const p = await project();
    const { asset } = await importJobAsset(ctx, { user_id: OWNER, project_id: p.id, job_id: 'job_vid', index: 0 });
    expect(asset).toMatchObject({ kind: 'video', metadata: { width: 160, height: 90 } });
    expect(asset.metadata.duration_sec).toBeCloseTo(1.5, 1);
    expect(asset.url).toMatch(/\.mp4$/);
  });

  it("answers 404 for another user's job, as for a missing one", async () => {
    const p = await project();
    await expect(
      importJobAsset(ctx, { user_id: OWNER, project_id: p.id, job_id: 'job_theirs', index: 0 }),
    ).rejects.toMatchObject({ kind: 'not_found', body: { error: 'Job not found' } });
  });

  it('answers 409 for a job that is not completed', async () => {
    const p = await project();
    await expect(
      importJobAsset(ctx, { user_id: OWNER, project_id: p.id, job_id: 'job_processing', index: 0 }),
    ).rejects.toMatchObject({
      kind: 'conflict',
      body: { error: 'Job job_processing is not completed (status: processing)' },
    });
  });

  it('answers 400 for an index past the results', async () => {
    const p = await project();
    await expect(
      importJobAsset(ctx, { user_id: OWNER, project_id: p.id, job_id: 'job_img', index: 2 }),
    ).rejects.toMatchObject({
      kind: 'invalid',
      body: { error: 'index 2 is out of range: job job_img has 2 results (index 0-1)' },
    });
  });

  it('records a staged upload as a probed asset and deletes the staged copy', async () => {
    const p = await project();
    await storage.putFile('uploads/u1.mp4', path.join(dir, 'v.mp4'), 'video/mp4');
    const { asset } = await importUpload(ctx, {
      user_id: OWNER,
      project_id: p.id,
      storage_key: 'uploads/u1.mp4',
      content_type: 'video/mp4',
      filename: 'holiday.mp4',
    });
    expect(asset).toMatchObject({
      kind: 'video',
      source: 'upload',
      url: expect.stringMatching(new RegExp(`^https://api\\.test/media/editor/${p.id}/ast_\\w+\\.mp4$`)),
      metadata: { width: 160, height: 90, filename: 'holiday.mp4' },
    });
    expect(await storage.stat('uploads/u1.mp4')).toBeNull();
  });

  it('refuses an upload that cannot be decoded with a 400, deleting the staged copy', async () => {
    const p = await project();
    await storage.put('uploads/u2.mp4', Buffer.from('\0\0\0\x20ftypisom but nothing after'), 'video/mp4');
    await expect(
      importUpload(ctx, {
        user_id: OWNER,
        project_id: p.id,
        storage_key: 'uploads/u2.mp4',
        content_type: 'video/mp4',
        filename: '',
      }),
    ).rejects.toMatchObject({
      kind: 'invalid',
      body: { error: 'the file is not a readable image, video or audio file' },
    });
    expect(await storage.stat('uploads/u2.mp4')).toBeNull();
  });

  it("answers 404 for another user's project before asking for the job", async () => {
    const p = await project(OTHER);
    await expect(
      importJobAsset(ctx, { user_id: OWNER, project_id: p.id, job_id: 'job_img', index: 0 }),
    ).rejects.toMatchObject({ kind: 'not_found' });
  });
});
