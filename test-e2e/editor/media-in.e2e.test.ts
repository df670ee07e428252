import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, userWithKey, type TestUser } from '../support/fleet';
import { waitForJob } from '../support/jobs';
import { downloadAndProbe } from '../support/media';
import { pooledFleet, type PooledFleet } from '../support/pool';

/**
 * Media into a project without a public URL: a completed job's image imported from media storage,
 * an mp4 uploaded as multipart, then both exported through the real fleet.
 */
describe('media in: job results and uploads', () => {
  let fleet: PooledFleet;
  let user: TestUser;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-media-in-e2e-'));
  const mp4 = path.join(dir, 'clip.mp4');
  const text = path.join(dir, 'notes.txt');

  beforeAll(async () => {
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25', '-f', 'lavfi'],
      ...['-i', 'sine=frequency=440', '-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
      ...['-shortest', mp4],
    ]);
    fs.writeFileSync(text, 'not a video\n'.repeat(100));
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'all', 1000);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const upload = async (file: string, name: string, type: string, projectId: string) => {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(file)], { type }), name);
    const res = await fetch(`${fleet.baseUrl}/api/v1/media-studio/projects/${projectId}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}` },
      body: form,
    });
    // Untyped JSON answers: the test asserts the shape it expects.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (await res.json()) as any };
  };

  it("imports a completed job's image and an uploaded mp4 into a project, then exports them", async () => {
    const submitted = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key: user.key,
      body: { prompt: 'a lighthouse at dusk' },
    });
    expect(submitted.status).toBe(202);
    const job = await waitForJob(fleet, user.key, submitted.body.job_id);
    expect(job.status).toBe('completed');

    const created = await api(fleet, 'POST', '/api/v1/media-studio/projects', {
      key: user.key,
      body: { aspect_ratio: '16:9' },
    });
    const projectId: string = created.body.project.id;
    const assets = `/api/v1/media-studio/projects/${projectId}/assets`;

    const fromJob = await api(fleet, 'POST', assets, { key: user.key, body: { job_id: job.job_id } });
    expect(fromJob.status).toBe(200);
    expect(fromJob.body.asset).toMatchObject({
      kind: 'image',
      source: 'import',
      metadata: { job_id: job.job_id, index: 0 },
    });

    const outOfRange = await api(fleet, 'POST', assets, { key: user.key, body: { job_id: job.job_id, index: 5 } });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.error).toMatch(/^index 5 is out of range/);

    const other = await userWithKey(fleet, 'all', 0);
    const theirs = await api(fleet, 'POST', '/api/v1/media-studio/projects', { key: other.key, body: {} });
    const foreign = await api(fleet, 'POST', `/api/v1/media-studio/projects/${theirs.body.project.id}/assets`, {
      key: other.key,
      body: { job_id: job.job_id },
    });
    expect([foreign.status, foreign.body]).toEqual([404, { error: 'Job not found' }]);

    const uploaded = await upload(mp4, 'clip.mp4', 'video/mp4', projectId);
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.asset).toMatchObject({
      kind: 'video',
      source: 'upload',
      metadata: { width: 640, height: 360, has_audio: true, filename: 'clip.mp4' },
    });
    expect(Math.abs(uploaded.body.asset.metadata.duration_sec - 2)).toBeLessThan(0.1);

    const refused = await upload(text, 'clip.mp4', 'video/mp4', projectId);
    expect(refused.status).toBe(415);
    expect(refused.body.error).toMatch(/^Unsupported media type: /);

    const clip = (assetId: string, extra: Record<string, unknown> = {}) =>
      api(fleet, 'POST', `/api/v1/media-studio/projects/${projectId}/clips`, {
        key: user.key,
        body: { track: 'video', asset_id: assetId, ...extra },
      });
    expect((await clip(fromJob.body.asset.id, { duration_sec: 1 })).status).toBe(200);
    expect((await clip(uploaded.body.asset.id)).status).toBe(200);
    const exported = await api(fleet, 'POST', `/api/v1/media-studio/projects/${projectId}/export`, {
      key: user.key,
      body: {},
    });
    expect(exported.status).toBe(200);
    expect(exported.body.video_clip_count).toBe(2);
    const out = await downloadAndProbe(exported.body.video_url);
    expect(out.probe.video).toMatchObject({ width: 1280, height: 720, codec: 'h264' });
    expect(Math.abs(out.probe.duration - 3)).toBeLessThan(0.15);
  });
});
