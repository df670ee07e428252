import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, userWithKey, type TestUser } from '../support/fleet';
import { downloadAndProbe } from '../support/media';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { openSse, readUntil } from '../support/sse-client';

/**
 * An export in the background (Prefer: respond-async): 202 at once, followed on the user's event
 * stream and by its status to a playable mp4; the events stay in the log; the blocking export of the
 * same timeline still answers as the contract says.
 */
describe('background export', () => {
  let fleet: PooledFleet;
  let user: TestUser;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-bg-export-e2e-'));
  const mp4 = path.join(dir, 'clip.mp4');

  beforeAll(async () => {
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25', '-f', 'lavfi'],
      ...['-i', 'sine=frequency=440', '-t', '3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
      ...['-shortest', mp4],
    ]);
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'all', 100);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const projectWithClip = async (): Promise<string> => {
    const created = await api(fleet, 'POST', '/api/v1/media-studio/projects', {
      key: user.key,
      body: { aspect_ratio: '16:9' },
    });
    const projectId: string = created.body.project.id;
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(mp4)], { type: 'video/mp4' }), 'clip.mp4');
    const uploaded = await fetch(`${fleet.baseUrl}/api/v1/media-studio/projects/${projectId}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}` },
      body: form,
    });
    expect(uploaded.status).toBe(200);
    const { asset } = (await uploaded.json()) as { asset: { id: string } };
    const clip = await api(fleet, 'POST', `/api/v1/media-studio/projects/${projectId}/clips`, {
      key: user.key,
      body: { track: 'video', asset_id: asset.id },
    });
    expect(clip.status).toBe(200);
    return projectId;
  };

  it('answers 202, reports rising progress on the event stream, and ends with a playable mp4', async () => {
    const projectId = await projectWithClip();
    const stream = await openSse(`${fleet.baseUrl}/api/v1/events/stream`, { key: user.key });
    expect(stream.status).toBe(200);
    try {
      const res = await fetch(`${fleet.baseUrl}/api/v1/media-studio/projects/${projectId}/export`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json', prefer: 'respond-async' },
        body: '{}',
      });
      expect(res.status).toBe(202);
      expect(res.headers.get('preference-applied')).toBe('respond-async');
      const accepted = (await res.json()) as { export_id: string };
      expect(accepted).toEqual({ export_id: expect.stringMatching(/^exp_/), status: 'rendering', progress: 0 });
      const exportPath = `/api/v1/media-studio/projects/${projectId}/exports/${accepted.export_id}`;
      expect(res.headers.get('location')).toBe(exportPath);

      const seen = await readUntil(stream, (e) => e.event === 'export.completed' || e.event === 'export.failed');
      const ours = seen
        .filter((e) => e.event.startsWith('export.'))
        .map((e) => ({ type: e.event, data: JSON.parse(e.data) as { export_id: string; progress: number } }))
        .filter((e) => e.data.export_id === accepted.export_id);
      expect(ours.at(-1)?.type).toBe('export.completed');
      expect(ours.some((e) => e.type === 'export.progress')).toBe(true);
      const percents = ours.map((e) => e.data.progress);
      expect(percents).toEqual([...percents].sort((a, b) => a - b));
      expect(new Set(percents).size).toBe(percents.length);
      expect(percents.at(-1)).toBe(100);

      const status = await api(fleet, 'GET', exportPath, { key: user.key });
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({
        export_id: accepted.export_id,
        project_id: projectId,
        status: 'completed',
        progress: 100,
        asset_id: expect.stringMatching(/^ast_/),
        error: null,
      });
      const out = await downloadAndProbe(status.body.video_url);
      expect(out.probe.video).toMatchObject({ width: 1280, height: 720, codec: 'h264' });
      expect(Math.abs(out.probe.duration - status.body.duration_sec)).toBeLessThan(0.15);

      const log = await api(fleet, 'GET', '/api/v1/events?limit=100', { key: user.key });
      const logged = (log.body.events as { type: string; export_id?: string; project_id?: string }[]).filter(
        (e) => e.export_id === accepted.export_id,
      );
      expect(logged.map((e) => e.type)).toEqual(ours.map((e) => e.type));
      expect(logged.every((e) => e.project_id === projectId)).toBe(true);

      const listed = await api(fleet, 'GET', `/api/v1/media-studio/projects/${projectId}/exports`, { key: user.key });
      expect(listed.body.exports[0]).toEqual(status.body);
    } finally {
      stream.close();
    }

    // Without the header, the contract's blocking answer.
    const blocking = await api(fleet, 'POST', `/api/v1/media-studio/projects/${projectId}/export`, {
      key: user.key,
      body: {},
    });
    expect(blocking.status).toBe(200);
    expect(Object.keys(blocking.body).sort()).toEqual(
      ['asset_id', 'audio_overlay_count', 'duration_sec', 'video_clip_count', 'video_url'].sort(),
    );
  });

  it('answers what it can check at once, and 404 for an export that is not there', async () => {
    const created = await api(fleet, 'POST', '/api/v1/media-studio/projects', { key: user.key, body: {} });
    const projectId: string = created.body.project.id;
    const res = await fetch(`${fleet.baseUrl}/api/v1/media-studio/projects/${projectId}/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json', prefer: 'respond-async' },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('no_video_clips');
    const missing = await api(fleet, 'GET', `/api/v1/media-studio/projects/${projectId}/exports/exp_nothere`, {
      key: user.key,
    });
    expect([missing.status, missing.body]).toEqual([404, { error: 'Export not found' }]);
  });
});
