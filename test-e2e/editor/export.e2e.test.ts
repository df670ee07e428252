import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { downloadAndProbe } from '../support/media';
import { startReferenceServer } from '../support/reference-server';

const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);

/** Export through the real fleet: a project built by direct edits, rendered to one mp4. */
describe('export', () => {
  let fleet: PooledFleet;
  let user: TestUser;
  let ref: Awaited<ReturnType<typeof startReferenceServer>>;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-export-e2e-'));

  beforeAll(async () => {
    const media = (name: string) => path.join(dir, name);
    ffmpeg(
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=640x360:rate=30',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440',
      '-t',
      '2',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-shortest',
      media('wide.mp4'),
    );
    ffmpeg(
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=360x640:rate=25',
      '-t',
      '1.5',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      media('tall.mp4'),
    );
    ffmpeg(
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=400x400:rate=24',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=330',
      '-t',
      '1',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-shortest',
      media('square.mp4'),
    );
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=600', '-t', '1', '-c:a', 'aac', media('voice1.m4a'));
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=700', '-t', '1', '-c:a', 'aac', media('voice2.m4a'));
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=220', '-t', '3', '-c:a', 'aac', media('music.m4a'));
    ref = await startReferenceServer({
      '/wide.mp4': { file: media('wide.mp4'), contentType: 'video/mp4' },
      '/tall.mp4': { file: media('tall.mp4'), contentType: 'video/mp4' },
      '/square.mp4': { file: media('square.mp4'), contentType: 'video/mp4' },
      '/voice1.m4a': { file: media('voice1.m4a'), contentType: 'audio/mp4' },
      '/voice2.m4a': { file: media('voice2.m4a'), contentType: 'audio/mp4' },
      '/music.m4a': { file: media('music.m4a'), contentType: 'audio/mp4' },
      // Answers later than the gateway's RPC_TIMEOUT_MS (3 s in test fleets): an import has its own limit.
      '/slow.m4a': { file: media('voice1.m4a'), contentType: 'audio/mp4', delayMs: 4000 },
    });
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'all', 100);
  });
  afterAll(async () => {
    await ref?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const edit = async (method: string, p: string, body?: unknown) => {
    const res = await api(fleet, method, `/api/v1/media-studio/projects${p}`, { key: user.key, body });
    if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  it('answers an import from an origin slower than the RPC timeout with the asset, not a 503', async () => {
    const { project } = await edit('POST', '', { name: 'Slow origin', aspect_ratio: '16:9' });
    const { asset } = await edit('POST', `/${project.id}/assets`, { url: `${ref.url}/slow.m4a` });
    expect(asset).toMatchObject({ id: expect.stringMatching(/^ast_/), kind: 'audio' });
  });

  it('renders 3 videos of different shapes, a still, 2 voice lines and music into one 9:16 mp4, stored as an export asset', async () => {
    const { project } = await edit('POST', '', { name: 'Export me', aspect_ratio: '9:16' });
    const p = `/${project.id}`;
    const importAsset = async (name: string) =>
      (await edit('POST', `${p}/assets`, { url: `${ref.url}/${name}` })).asset;
    const [wide, tall, square, still, v1, v2, music] = [
      await importAsset('wide.mp4'),
      await importAsset('tall.mp4'),
      await importAsset('square.mp4'),
      await importAsset('ref.png'),
      await importAsset('voice1.m4a'),
      await importAsset('voice2.m4a'),
      await importAsset('music.m4a'),
    ];
    expect([wide.kind, still.kind, v1.kind]).toEqual(['video', 'image', 'audio']);
    for (const a of [wide, tall, square]) await edit('POST', `${p}/clips`, { track: 'video', asset_id: a.id });
    await edit('POST', `${p}/clips`, { track: 'video', asset_id: still.id, duration_sec: 1 });
    await edit('POST', `${p}/clips`, { track: 'voice', asset_id: v1.id });
    await edit('POST', `${p}/clips`, { track: 'voice', asset_id: v2.id, start_sec: 3 });
    await edit('POST', `${p}/clips`, { track: 'music', asset_id: music.id, volume: 0.5 });

    const exported = await edit('POST', `${p}/export`, {});
    expect(exported).toEqual({
      asset_id: expect.stringMatching(/^ast_/),
      video_url: expect.stringContaining(`${fleet.baseUrl}/media/`),
      duration_sec: expect.any(Number),
      video_clip_count: 4,
      audio_overlay_count: 3,
    });
    // 2 + 1.5 + 1 + 1 seconds, within a frame or two.
    expect(Math.abs(exported.duration_sec - 5.5)).toBeLessThan(0.1);
    const out = await downloadAndProbe(exported.video_url);
    expect(out.probe.video).toMatchObject({ width: 720, height: 1280, codec: 'h264' });
    expect(out.probe.audio).toMatchObject({ codec: 'aac' });
    expect(Math.abs(out.probe.duration - 5.5)).toBeLessThan(0.1);
    const range = await fetch(exported.video_url, { headers: { range: 'bytes=0-99' } });
    expect(range.status).toBe(206);

    const state = await edit('GET', p);
    expect(state.assets.find((a: { id: string }) => a.id === exported.asset_id)).toMatchObject({
      kind: 'export',
      source: 'export',
      url: exported.video_url,
    });
  });

  it("answers a re-export of an unchanged timeline with a new asset on the first export's file, which stays until its last asset is deleted", async () => {
    const { project } = await edit('POST', '', { name: 'Export twice', aspect_ratio: '16:9' });
    const p = `/${project.id}`;
    const wide = (await edit('POST', `${p}/assets`, { url: `${ref.url}/wide.mp4` })).asset;
    const voice = (await edit('POST', `${p}/assets`, { url: `${ref.url}/voice1.m4a` })).asset;
    await edit('POST', `${p}/clips`, { track: 'video', asset_id: wide.id });
    await edit('POST', `${p}/clips`, { track: 'voice', asset_id: voice.id });

    const first = await edit('POST', `${p}/export`, {});
    const second = await edit('POST', `${p}/export`, {});

    expect(second.asset_id).not.toBe(first.asset_id);
    expect(second).toEqual({ ...first, asset_id: second.asset_id });
    const exports = (await edit('GET', p)).assets.filter((a: { kind: string }) => a.kind === 'export');
    expect(exports.map((a: { id: string; url: string }) => [a.id, a.url]).sort()).toEqual(
      [
        [first.asset_id, first.video_url],
        [second.asset_id, second.video_url],
      ].sort(),
    );

    // Deleting the first asset leaves the file for the second.
    await edit('DELETE', `${p}/assets/${first.asset_id}`);
    const kept = await downloadAndProbe(second.video_url);
    expect(kept.probe.video).toMatchObject({ width: 1280, height: 720 });

    // Another fit is another timeline: a new file.
    const filled = await edit('POST', `${p}/export`, { fit: 'fill' });
    expect(filled.video_url).not.toBe(second.video_url);

    // With its last asset gone the shared file goes too, and the same timeline renders anew.
    await edit('DELETE', `${p}/assets/${second.asset_id}`);
    expect((await fetch(second.video_url)).status).toBe(404);
    const third = await edit('POST', `${p}/export`, {});
    expect(third.video_url).not.toBe(second.video_url);
    expect((await downloadAndProbe(third.video_url)).probe.video).toMatchObject({ width: 1280, height: 720 });
  });

  it("answers 400 no_video_clips for an empty timeline, and 404 for another user's project", async () => {
    const { project } = await edit('POST', '', { name: 'Empty' });
    const empty = await api(fleet, 'POST', `/api/v1/media-studio/projects/${project.id}/export`, {
      key: user.key,
      body: {},
    });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: 'no_video_clips', message: expect.any(String) });
    const other = await userWithKey(fleet, 'all');
    const foreign = await api(fleet, 'POST', `/api/v1/media-studio/projects/${project.id}/export`, {
      key: other.key,
      body: {},
    });
    expect(foreign.status).toBe(404);
    const bad = await api(fleet, 'POST', `/api/v1/media-studio/projects/${project.id}/export`, {
      key: user.key,
      body: { fit: 'stretch' },
    });
    expect(bad).toMatchObject({ status: 400, body: { error: 'fit must be one of fit, fill' } });
  });
});
