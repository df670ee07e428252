import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bus } from '@mf/bus';
import {
  exportsRpc,
  jobsRpc,
  renderProgressEvent,
  type AppendExportEventRequest,
  type ExportStatus,
  type RenderRequest,
} from '@mf/contracts';
import { createDb, migrate, type Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { createStorage } from '@mf/storage';
import { freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';
import { migrations } from '../migrations';
import { RenderProgressListener } from '../src/messaging/render-progress.listener';
import { insertAsset } from '../src/repositories/assets.repository';
import { failRunningExports, getExport, startExport } from '../src/usecases/background-export.usecase';
import { addClip } from '../src/usecases/clips.usecase';
import type { EditorContext } from '../src/usecases/context';
import { createProject } from '../src/usecases/projects.usecase';
import { TEST_SETTINGS } from './support/editor-records';

const unused = () => Promise.reject(new Error('unused'));

/**
 * Background exports against the real database and broker, with the renderer and the jobs service's
 * event log played by fakes: progress and the end are recorded in order, a refused render ends
 * the export failed with the blocking call's error, and an export whose replica died is failed.
 */
describe('background exports', () => {
  let env: TestEnv;
  let db: Knex;
  let bus: Bus;
  let fakes: Bus;
  let ctx: EditorContext;
  let dir: string;
  const logged: AppendExportEventRequest[] = [];
  let render: (req: RenderRequest) => Promise<unknown>;

  beforeAll(async () => {
    env = await freshTestEnv();
    db = createDb({ url: env.databaseUrl, schema: 'editor' });
    await migrate(db, 'editor', migrations);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-bg-export-int-'));
    const logger = silentLogger();
    fakes = new Bus({ url: env.amqpUrl, service: 'fakes', logger });
    await fakes.start();
    await fakes.serveRpc(exportsRpc, { render: (req) => render(req) as never });
    await fakes.serveRpc(jobsRpc, {
      submit: unused,
      get: unused,
      getMany: unused,
      cancel: unused,
      getResult: unused,
      list: unused,
      providerCallback: unused,
      attempts: unused,
      events: unused,
      recordTestEvent: unused,
      appendExportEvent: async (req) => {
        logged.push(req);
        return { event_id: `evt_${String(logged.length).padStart(16, '0')}` };
      },
    });
    bus = new Bus({ url: env.amqpUrl, service: 'editor-agent', logger });
    await bus.start();
    const renderProgress = new RenderProgressListener();
    await renderProgress.start(bus);
    ctx = {
      db,
      bus,
      storage: createStorage({ driver: 'local', dir: path.join(dir, 'media') }),
      logger,
      settings: { ...TEST_SETTINGS, exportTimeoutMs: 60_000 },
      download: unused,
      probe: unused,
      llm: null,
      audio: { voice: unused, music: unused, sfx: unused },
      renderProgress,
    };
  });
  afterAll(async () => {
    await bus?.close();
    await fakes?.close();
    await db?.destroy();
    await env?.teardown();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const projectWithClip = async (userId: number) => {
    const { project } = await createProject(ctx, {
      user_id: userId,
      name: 'P',
      description: null,
      aspect_ratio: '16:9',
    });
    await ctx.storage.putFile('editor/src.mp4', __filename, 'video/mp4');
    const asset = await insertAsset(db, {
      id: `ast_${userId}src`,
      project_id: project.id,
      kind: 'video',
      source: 'upload',
      storage_key: 'editor/src.mp4',
      metadata: { duration_sec: 2 },
    });
    await addClip(ctx, { user_id: userId, project_id: project.id, track: 'video', asset_id: asset.id });
    return project.id;
  };

  const until = async <T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> => {
    for (;;) {
      const v = await read();
      if (done(v)) return v;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const eventsOf = (exportId: string) => logged.filter((e) => e.payload.export_id === exportId);

  it('records the renderer’s progress, then the completed export with its asset', async () => {
    const projectId = await projectWithClip(1);
    render = async (req) => {
      await fakes.publishEvent(renderProgressEvent, { export_id: req.export_id!, progress: 40 });
      // Answers once the progress is in the log, so the test does not race the broker.
      await until(
        async () => eventsOf(req.export_id!),
        (e) => e.length > 0,
      );
      await ctx.storage.putFile(req.output_key, __filename, 'video/mp4');
      return {
        output_key: req.output_key,
        duration_sec: 2,
        video_clip_count: 1,
        audio_overlay_count: 0,
        width: req.width,
        height: req.height,
        bytes: 10,
      };
    };
    const accepted = await startExport(ctx, { user_id: 1, project_id: projectId, fit: 'fit' });
    expect(accepted).toEqual({ export_id: expect.stringMatching(/^exp_/), status: 'rendering', progress: 0 });
    const ref = { user_id: 1, project_id: projectId, export_id: accepted.export_id };
    const done = await until(
      () => getExport(ctx, ref),
      (s: ExportStatus) => s.status !== 'rendering',
    );
    expect(done).toMatchObject({ status: 'completed', progress: 100, duration_sec: 2, error: null });
    expect(done.video_url).toMatch(/^https:\/\/api\.test\/media\/editor\/.+\.mp4$/);
    await until(
      async () => eventsOf(accepted.export_id),
      (e) => e.length === 2,
    );
    expect(eventsOf(accepted.export_id).map((e) => [e.type, e.payload.export.progress])).toEqual([
      ['export.progress', 40],
      ['export.completed', 100],
    ]);
    expect(eventsOf(accepted.export_id)[1].payload).toMatchObject({ user_id: 1, project_id: projectId });
  });

  it('ends an export failed with the error the blocking call would have answered', async () => {
    const projectId = await projectWithClip(2);
    render = () =>
      Promise.reject(
        new AppError('internal', { error: 'ffmpeg_failed', message: 'Rendering failed. Please try again.' }),
      );
    const accepted = await startExport(ctx, { user_id: 2, project_id: projectId, fit: 'fit' });
    const ref = { user_id: 2, project_id: projectId, export_id: accepted.export_id };
    const done = await until(
      () => getExport(ctx, ref),
      (s: ExportStatus) => s.status !== 'rendering',
    );
    expect(done).toMatchObject({
      status: 'failed',
      asset_id: null,
      error: { error: 'ffmpeg_failed', message: 'Rendering failed. Please try again.' },
    });
    await until(
      async () => eventsOf(accepted.export_id),
      (e) => e.length === 1,
    );
    expect(eventsOf(accepted.export_id)[0].type).toBe('export.failed');
  });

  it('fails an export still rendering long past the render limit (its replica is gone)', async () => {
    const projectId = await projectWithClip(3);
    await db('exports').insert({
      id: 'exp_lost',
      user_id: 3,
      project_id: projectId,
      video_id: (await db('videos').where({ project_id: projectId }).first<{ id: string }>()).id,
      status: 'rendering',
      progress: 30,
      created_at: new Date(Date.now() - 3_600_000),
    });
    const status = await getExport(ctx, { user_id: 3, project_id: projectId, export_id: 'exp_lost' });
    expect(status).toMatchObject({ status: 'failed', progress: 30, error: { error: 'export_failed' } });
    await expect(getExport(ctx, { user_id: 4, project_id: projectId, export_id: 'exp_lost' })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('ends the exports it renders failed when the process stops', async () => {
    const projectId = await projectWithClip(5);
    let started = false;
    let release = () => undefined as void;
    render = () =>
      new Promise((_, reject) => {
        started = true;
        release = () => reject(new AppError('internal', { error: 'ffmpeg_failed', message: 'Rendering failed.' }));
      });
    const accepted = await startExport(ctx, { user_id: 5, project_id: projectId, fit: 'fit' });
    await until(
      async () => started,
      (s) => s,
    );
    expect(await failRunningExports(ctx)).toBe(1);
    expect(await getExport(ctx, { user_id: 5, project_id: projectId, export_id: accepted.export_id })).toMatchObject({
      status: 'failed',
      error: { error: 'export_failed', message: 'The export was interrupted. Please try again.' },
    });
    expect(eventsOf(accepted.export_id).map((e) => e.type)).toEqual(['export.failed']);
    release();
  });
});
