import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from '@mf/db';
import { createStorage } from '@mf/storage';
import { insertAsset } from '../src/repositories/assets.repository';
import { deleteAsset, importAsset, storeAssetFile } from '../src/usecases/assets.usecase';
import { addClip, moveClip, removeClip } from '../src/usecases/clips.usecase';
import type { EditorContext } from '../src/usecases/context';
import {
  appendContext,
  createProject,
  createVideo,
  getProjectState,
  listProjects,
  setAspectRatio,
} from '../src/usecases/projects.usecase';
import { editorRecords, type EditorRecords } from './support/editor-records';

/** The editor's records against the real database: timeline order, ownership, cascades. */
describe('editor records', () => {
  let records: EditorRecords;
  let db: Knex;
  let ctx: EditorContext;
  let dir: string;
  let png: string;

  beforeAll(async () => {
    records = await editorRecords();
    db = records.db;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-editor-int-'));
    png = path.join(dir, 'still.png');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=blue:s=320x240', '-frames:v', '1', '-y', png]);
    ctx = records.context({
      storage: createStorage({ driver: 'local', dir: path.join(dir, 'media') }),
      // Imports "download" the local PNG: the SSRF guard has its own tests.
      download: async (_url, dest) => {
        fs.copyFileSync(png, dest);
        return { contentType: 'image/png', bytes: fs.statSync(dest).size };
      },
    });
  });
  afterAll(async () => {
    await records?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const still = async (projectId: string) =>
    storeAssetFile(ctx, {
      projectId,
      kind: 'image',
      source: 'upload',
      file: png,
      contentType: 'image/png',
      metadata: {},
    });

  it("creates a project with its default video and lists only the owner's projects, newest activity first", async () => {
    const a = (await createProject(ctx, { user_id: 1, name: 'A', description: null, aspect_ratio: '9:16' })).project;
    const b = (await createProject(ctx, { user_id: 1, name: 'B', description: 'd', aspect_ratio: '16:9' })).project;
    await createProject(ctx, { user_id: 2, name: 'other', description: null, aspect_ratio: '1:1' });
    await appendContext(ctx, 1, a.id, 'A changed last');
    expect((await listProjects(ctx, 1)).projects.map((p) => p.name)).toEqual(['A', 'B']);
    const state = await getProjectState(ctx, { user_id: 1, project_id: b.id });
    expect(state.videos).toEqual([
      { id: expect.stringMatching(/^vid_/), name: 'Main video', aspect_ratio: '16:9', created_at: expect.any(String) },
    ]);
    await expect(getProjectState(ctx, { user_id: 2, project_id: b.id })).rejects.toMatchObject({
      kind: 'not_found',
      body: { error: 'Project not found' },
    });
  });

  it('inserts, moves and removes clips keeping each track numbered 0..n-1', async () => {
    const { project } = await createProject(ctx, { user_id: 3, name: 'T', description: null, aspect_ratio: '9:16' });
    const asset = await still(project.id);
    const ref = { user_id: 3, project_id: project.id };
    const c0 = (await addClip(ctx, { ...ref, track: 'video', asset_id: asset.id })).clip;
    const c1 = (await addClip(ctx, { ...ref, track: 'video', asset_id: asset.id, duration_sec: 2 })).clip;
    const first = (await addClip(ctx, { ...ref, track: 'video', asset_id: asset.id, idx: 0 })).clip;
    const far = (await addClip(ctx, { ...ref, track: 'video', asset_id: asset.id, idx: 99 })).clip;
    const order = async () =>
      (await getProjectState(ctx, { ...ref })).clips.filter((c) => c.track === 'video').map((c) => [c.id, c.idx]);
    expect(await order()).toEqual([
      [first.id, 0],
      [c0.id, 1],
      [c1.id, 2],
      [far.id, 3],
    ]);
    await moveClip(ctx, { ...ref, clip_id: far.id, idx: 1 });
    expect(await order()).toEqual([
      [first.id, 0],
      [far.id, 1],
      [c0.id, 2],
      [c1.id, 3],
    ]);
    await removeClip(ctx, { ...ref, clip_id: first.id });
    expect(await order()).toEqual([
      [far.id, 0],
      [c0.id, 1],
      [c1.id, 2],
    ]);
    await expect(addClip(ctx, { ...ref, track: 'voice', asset_id: asset.id })).rejects.toMatchObject({
      kind: 'invalid',
      body: { error: 'an asset of kind image cannot go on the voice track' },
    });
    // Deleting the asset takes its clips with it.
    expect(await deleteAsset(ctx, { ...ref, asset_id: asset.id })).toEqual({ deleted: true, clips_removed: 3 });
    expect(await order()).toEqual([]);
  });

  it('deletes a stored file only with the last asset pointing at it (exports of an unchanged timeline share one)', async () => {
    const { project } = await createProject(ctx, {
      user_id: 5,
      name: 'Shared',
      description: null,
      aspect_ratio: '9:16',
    });
    const ref = { user_id: 5, project_id: project.id };
    const first = await still(project.id);
    // A second asset on the same object, as the export use case records a reused result.
    const second = await insertAsset(db, {
      id: 'ast_shared_copy',
      project_id: project.id,
      kind: 'export',
      source: 'export',
      storage_key: first.storage_key,
      metadata: {},
    });

    await deleteAsset(ctx, { ...ref, asset_id: first.id });
    expect(await ctx.storage.stat(first.storage_key)).not.toBeNull();
    await deleteAsset(ctx, { ...ref, asset_id: second.id });
    expect(await ctx.storage.stat(first.storage_key)).toBeNull();
  });

  it("keeps each video's timeline its own, and narrows clips by video_id", async () => {
    const { project } = await createProject(ctx, { user_id: 4, name: 'V', description: null, aspect_ratio: '9:16' });
    const ref = { user_id: 4, project_id: project.id };
    const second = (await createVideo(ctx, { ...ref, name: 'Cut B' })).video;
    const asset = await still(project.id);
    await addClip(ctx, { ...ref, track: 'video', asset_id: asset.id });
    await addClip(ctx, { ...ref, video_id: second.id, track: 'video', asset_id: asset.id });
    expect((await getProjectState(ctx, ref)).clips).toHaveLength(2);
    const narrowed = await getProjectState(ctx, { ...ref, video_id: second.id });
    expect(narrowed.clips.map((c) => [c.video_id, c.idx])).toEqual([[second.id, 0]]);
    await expect(getProjectState(ctx, { ...ref, video_id: 'vid_nope' })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('changes the aspect ratio of the project and all its videos', async () => {
    const { project } = await createProject(ctx, { user_id: 5, name: 'R', description: null, aspect_ratio: '9:16' });
    await createVideo(ctx, { user_id: 5, project_id: project.id, name: 'second' });
    expect(
      (await setAspectRatio(ctx, { user_id: 5, project_id: project.id, aspect_ratio: '16:9' })).project.aspect_ratio,
    ).toBe('16:9');
    expect(
      (await getProjectState(ctx, { user_id: 5, project_id: project.id })).videos.map((v) => v.aspect_ratio),
    ).toEqual(['16:9', '16:9']);
  });

  it("imports an asset as a probed image served from the project's storage", async () => {
    const { project } = await createProject(ctx, { user_id: 6, name: 'I', description: null, aspect_ratio: '9:16' });
    const { asset } = await importAsset(ctx, { user_id: 6, project_id: project.id, url: 'https://example.com/a.png' });
    expect(asset).toMatchObject({
      kind: 'image',
      source: 'import',
      url: expect.stringMatching(new RegExp(`^https://api.test/media/editor/${project.id}/ast_`)),
      metadata: { width: 320, height: 240, has_audio: false, source_url: 'https://example.com/a.png' },
    });
    await expect(
      importAsset(ctx, { user_id: 7, project_id: project.id, url: 'https://example.com/a.png' }),
    ).rejects.toMatchObject({ kind: 'not_found' });
  });
});
