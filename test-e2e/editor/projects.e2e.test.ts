import { api, userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { balance } from '../support/jobs';
import { downloadAndProbe } from '../support/media';
import { startReferenceServer } from '../support/reference-server';

/**
 * The editor's projects end to end: the contract's create, list and get, the direct edits (REST
 * twins of the editor's MCP tools), ownership, scopes and validation. Agent turns that need a
 * language model are not exercised here.
 */

const PROJECTS = '/api/v1/media-studio/projects';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const PROJECT_FIELDS = ['aspect_ratio', 'context_md', 'created_at', 'id', 'name', 'updated_at'];
const SUMMARY_FIELDS = ['aspect_ratio', 'id', 'name', 'updated_at'];
const EDITOR = 'video-editor:read,video-editor:write';
const EMOJI = '\u{1F3AC}';

interface ClipLike {
  id: string;
  video_id: string;
  track: string;
  idx: number;
  asset_id: string;
}

/** One track of one video as [clip id, idx] pairs in timeline order. */
function track(clips: ClipLike[], videoId: string, name = 'video'): [string, number][] {
  return clips
    .filter((c) => c.video_id === videoId && c.track === name)
    .sort((a, b) => a.idx - b.idx)
    .map((c) => [c.id, c.idx]);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('editor projects', () => {
  let fleet: PooledFleet;
  let ref: Awaited<ReturnType<typeof startReferenceServer>>;
  let pngUrl: string;

  beforeAll(async () => {
    // The reference server is on 127.0.0.1: imports from it need private URLs allowed.
    fleet = await pooledFleet();
    ref = await startReferenceServer();
    pngUrl = `${ref.url}/ref.png`;
  }, 180_000);
  afterAll(async () => {
    await ref?.close();
  });

  const create = async (user: TestUser, body: unknown = {}) => {
    const res = await api(fleet, 'POST', PROJECTS, { key: user.key, body });
    expect([res.status, res.body]).toEqual([200, { project: expect.any(Object) }]);
    return res.body.project;
  };
  const getState = async (user: TestUser, projectId: string, query = '') => {
    const res = await api(fleet, 'GET', `${PROJECTS}/${projectId}${query}`, { key: user.key });
    expect(res.status).toBe(200);
    return res.body;
  };
  const list = async (user: TestUser) => {
    const res = await api(fleet, 'GET', PROJECTS, { key: user.key });
    expect(res.status).toBe(200);
    return res.body.projects;
  };
  const importPng = async (user: TestUser, projectId: string) => {
    const res = await api(fleet, 'POST', `${PROJECTS}/${projectId}/assets`, { key: user.key, body: { url: pngUrl } });
    expect(res.status).toBe(200);
    return res.body.asset;
  };
  const addClip = async (user: TestUser, projectId: string, body: Record<string, unknown>) => {
    const res = await api(fleet, 'POST', `${PROJECTS}/${projectId}/clips`, { key: user.key, body });
    expect([res.status, res.body]).toEqual([200, { clip: expect.any(Object) }]);
    return res.body.clip;
  };

  describe('create, get and list', () => {
    let user: TestUser;
    beforeAll(async () => {
      user = await userWithKey(fleet, EDITOR);
    });

    it('creates a project with the defaults and exactly the contract fields', async () => {
      const res = await api(fleet, 'POST', PROJECTS, { key: user.key, body: {} });
      expect(res.status).toBe(200);
      const p = res.body.project;
      expect(Object.keys(res.body)).toEqual(['project']);
      expect(Object.keys(p).sort()).toEqual(PROJECT_FIELDS);
      expect(p).toEqual({
        id: expect.stringMatching(/^prj_[A-Za-z0-9]{1,64}$/),
        name: 'Untitled project',
        aspect_ratio: '9:16',
        context_md: '',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(Date.parse(p.updated_at)).toBeGreaterThanOrEqual(Date.parse(p.created_at));
      expect(Math.abs(Date.parse(p.created_at) - Date.now())).toBeLessThan(60_000);
    });

    it('creates a project from a request sent without any body', async () => {
      const res = await api(fleet, 'POST', PROJECTS, { key: user.key });
      expect(res.status).toBe(200);
      expect(res.body.project).toMatchObject({ name: 'Untitled project', aspect_ratio: '9:16' });
    });

    it('keeps the given name and aspect ratio, and accepts a description', async () => {
      const p = await create(user, {
        name: 'Launch teaser',
        description: 'For the spring launch',
        aspect_ratio: '16:9',
      });
      expect(p).toMatchObject({ name: 'Launch teaser', aspect_ratio: '16:9', context_md: '' });
      expect(Object.keys(p).sort()).toEqual(PROJECT_FIELDS);
    });

    it('counts the name in characters: a name of 120 emoji is accepted', async () => {
      const p = await create(user, { name: EMOJI.repeat(120) });
      expect(p.name).toBe(EMOJI.repeat(120));
    });

    it('shows a new project with one video named "Main video" in the project format, and nothing else', async () => {
      const p = await create(user, { name: 'Square', aspect_ratio: '1:1' });
      const state = await getState(user, p.id);
      expect(state).toEqual({
        project: { id: p.id, name: 'Square', aspect_ratio: '1:1', context_md: '' },
        videos: [
          { id: expect.any(String), name: 'Main video', aspect_ratio: '1:1', created_at: expect.stringMatching(ISO) },
        ],
        assets: [],
        clips: [],
      });
      expect(Object.keys(state.videos[0]).sort()).toEqual(['aspect_ratio', 'created_at', 'id', 'name']);
    });

    it("lists only the caller's projects, most recently updated first, with exactly the summary fields", async () => {
      const a = await userWithKey(fleet, EDITOR);
      const b = await userWithKey(fleet, EDITOR);
      const first = await create(a, { name: 'First' });
      await pause(20);
      const second = await create(a, { name: 'Second', aspect_ratio: '4:5' });
      await pause(20);
      const theirs = await create(b, { name: 'Theirs' });

      const mine = await list(a);
      expect(mine).toEqual([
        { id: second.id, name: 'Second', aspect_ratio: '4:5', updated_at: second.updated_at },
        { id: first.id, name: 'First', aspect_ratio: '9:16', updated_at: first.updated_at },
      ]);
      for (const s of mine) expect(Object.keys(s).sort()).toEqual(SUMMARY_FIELDS);
      expect((await list(b)).map((s: { id: string }) => s.id)).toEqual([theirs.id]);

      // An edit moves a project to the top.
      await pause(20);
      const renamed = await api(fleet, 'PATCH', `${PROJECTS}/${first.id}`, {
        key: a.key,
        body: { name: 'First, renamed' },
      });
      expect(renamed.status).toBe(200);
      const after = await list(a);
      expect(after.map((s: { id: string; name: string }) => [s.id, s.name])).toEqual([
        [first.id, 'First, renamed'],
        [second.id, 'Second'],
      ]);
      expect(Date.parse(after[0].updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
    });

    it('lists nothing for a user without projects', async () => {
      expect(await list(await userWithKey(fleet, EDITOR))).toEqual([]);
    });

    it('answers 404 "Project not found" for an unknown or malformed project id', async () => {
      for (const id of ['prj_doesnotexist', 'p1', "prj_1'%20OR%20'1'='1", '..%2F..%2Fetc']) {
        const res = await api(fleet, 'GET', `${PROJECTS}/${id}`, { key: user.key });
        expect([id, res.status, res.body]).toEqual([id, 404, { error: 'Project not found' }]);
      }
    });
  });

  describe('validation', () => {
    let user: TestUser;
    let project: { id: string };
    beforeAll(async () => {
      user = await userWithKey(fleet, EDITOR, 100);
      project = await create(user, { name: 'Target' });
    });

    it('refuses every invalid create with 400 and the exact message, creating nothing', async () => {
      const before = await list(user);
      const cases: [unknown, string][] = [
        [{ name: 'n'.repeat(121) }, 'name must be 1-120 characters'],
        [{ name: EMOJI.repeat(121) }, 'name must be 1-120 characters'],
        [{ name: '' }, 'name must be 1-120 characters'],
        [{ name: '   ' }, 'name must be 1-120 characters'],
        [{ name: 42 }, 'name must be 1-120 characters'],
        [{ description: 'd'.repeat(1001) }, 'description must be at most 1000 characters'],
        [{ aspect_ratio: '21:9' }, 'aspect_ratio must be one of 9:16, 1:1, 4:5, 16:9, 4:3'],
        [{ aspect_ratio: '3:4' }, 'aspect_ratio must be one of 9:16, 1:1, 4:5, 16:9, 4:3'],
        [{ name: 'ok', title: 'typo' }, 'unknown field: title (accepted: name, description, aspect_ratio)'],
        [[{ name: 'x' }], 'Request body must be a JSON object'],
        ['null', 'Request body must be a JSON object'],
        ['{"name": ', 'Invalid JSON body'],
      ];
      for (const [body, error] of cases) {
        const res = await api(fleet, 'POST', PROJECTS, { key: user.key, body });
        expect([body, res.status, res.body]).toEqual([body, 400, { error }]);
      }
      expect(await list(user)).toEqual(before);
    });

    it('refuses every invalid instruction with 400 and the exact message, charging and changing nothing', async () => {
      const credits = await balance(fleet, user.key);
      const stateBefore = await getState(user, project.id);
      const url = (i: number) => `https://images.example.com/${i}.png`;
      const cases: [unknown, string][] = [
        [{}, 'instruction or image_urls is required'],
        [{ instruction: '' }, 'instruction or image_urls is required'],
        [{ instruction: '  ', image_urls: [] }, 'instruction or image_urls is required'],
        [{ instruction: 'i'.repeat(8001) }, 'instruction must be at most 8000 characters'],
        [{ instruction: 5 }, 'instruction must be a string'],
        [
          { instruction: 'x', image_urls: Array.from({ length: 11 }, (_, i) => url(i)) },
          'image_urls must be an array of at most 10 https URLs',
        ],
        [{ instruction: 'x', image_urls: url(1) }, 'image_urls must be an array of at most 10 https URLs'],
        [{ instruction: 'x', image_urls: ['http://images.example.com/a.png'] }, 'image_urls items must be https URLs'],
        [{ instruction: 'x', video_id: 7 }, 'video_id must be a string'],
        [{ instruction: 'x', prompt: 'y' }, 'unknown field: prompt (accepted: instruction, image_urls, video_id)'],
        ['"just text"', 'Request body must be a JSON object'],
      ];
      for (const [body, error] of cases) {
        const res = await api(fleet, 'POST', `${PROJECTS}/${project.id}/instruct`, { key: user.key, body });
        expect([body, res.status, res.body]).toEqual([body, 400, { error }]);
      }
      expect(await balance(fleet, user.key)).toBe(credits);
      expect(await getState(user, project.id)).toEqual(stateBefore);
    });

    it('refuses every invalid direct edit with 400 and the exact message, changing nothing', async () => {
      const before = await getState(user, project.id);
      const videoId = before.videos[0].id;
      const p = `${PROJECTS}/${project.id}`;
      const cases: [string, string, unknown, string][] = [
        ['POST', `${p}/videos`, { name: 'v'.repeat(121) }, 'name must be 1-120 characters'],
        ['PATCH', p, {}, 'name must be 1-120 characters'],
        ['PATCH', p, { name: ' ' }, 'name must be 1-120 characters'],
        ['PATCH', `${p}/videos/${videoId}`, { name: 'v'.repeat(121) }, 'name must be 1-120 characters'],
        ['POST', `${p}/assets`, { url: 'http://images.example.com/a.png' }, 'url must be a https URL'],
        ['POST', `${p}/assets`, {}, 'url must be a https URL'],
        [
          'POST',
          `${p}/clips`,
          { track: 'subtitles', asset_id: 'ast_1' },
          'track must be one of video, voice, sfx, music',
        ],
        ['POST', `${p}/clips`, { track: 'video' }, 'asset_id is required'],
        ['POST', `${p}/clips`, { track: 'video', asset_id: 'ast_1', idx: -1 }, 'idx must be an integer of at least 0'],
        ['POST', `${p}/clips`, { track: 'video', asset_id: 'ast_1', idx: 1.5 }, 'idx must be an integer of at least 0'],
        [
          'POST',
          `${p}/clips`,
          { track: 'video', asset_id: 'ast_1', duration_sec: 0 },
          'duration_sec must be a number between 0.1 and 600',
        ],
        [
          'POST',
          `${p}/clips`,
          { track: 'video', asset_id: 'ast_1', duration_sec: 601 },
          'duration_sec must be a number between 0.1 and 600',
        ],
        [
          'POST',
          `${p}/clips`,
          { track: 'music', asset_id: 'ast_1', start_sec: 3601 },
          'start_sec must be a number between 0 and 3600',
        ],
        [
          'POST',
          `${p}/clips`,
          { track: 'music', asset_id: 'ast_1', volume: 3 },
          'volume must be a number between 0 and 2',
        ],
        [
          'POST',
          `${p}/clips`,
          { track: 'music', asset_id: 'ast_1', volume: '1' },
          'volume must be a number between 0 and 2',
        ],
        ['PATCH', `${p}/clips/clp_1`, { idx: -1 }, 'idx must be an integer of at least 0'],
        [
          'PUT',
          `${p}/context`,
          { context_md: 'c'.repeat(100_001) },
          'context_md must be a string of at most 100000 characters',
        ],
        ['PUT', `${p}/context`, {}, 'context_md must be a string of at most 100000 characters'],
        ['PUT', `${p}/aspect-ratio`, { aspect_ratio: '2:1' }, 'aspect_ratio must be one of 9:16, 1:1, 4:5, 16:9, 4:3'],
        ['GET', `${p}?video_id=a&video_id=b`, undefined, 'video_id must be a string'],
      ];
      for (const [method, path, body, error] of cases) {
        const res = await api(fleet, method, path, { key: user.key, body });
        expect([method, path, res.status, res.body]).toEqual([method, path, 400, { error }]);
      }
      expect(await getState(user, project.id)).toEqual(before);
    });
  });

  describe('scopes', () => {
    it('refuses create, instruct and direct edits to a read-only key with 403, creating nothing', async () => {
      const reader = await userWithKey(fleet, 'video-editor:read');
      const res = await api(fleet, 'POST', PROJECTS, { key: reader.key, body: { name: 'no' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'This API key lacks the required scope: video-editor:write',
        required_scope: 'video-editor:write',
      });
      for (const [method, path] of [
        ['POST', `${PROJECTS}/prj_abc/instruct`],
        ['PATCH', `${PROJECTS}/prj_abc`],
        ['POST', `${PROJECTS}/prj_abc/clips`],
        ['PUT', `${PROJECTS}/prj_abc/context`],
      ]) {
        expect([method, path, (await api(fleet, method, path, { key: reader.key, body: {} })).status]).toEqual([
          method,
          path,
          403,
        ]);
      }
      expect(await list(reader)).toEqual([]);
    });

    it('refuses list and get to a write-only key with 403', async () => {
      const writer = await userWithKey(fleet, 'video-editor:write');
      const p = await create(writer);
      for (const path of [PROJECTS, `${PROJECTS}/${p.id}`]) {
        const res = await api(fleet, 'GET', path, { key: writer.key });
        expect([path, res.status, res.body]).toEqual([
          path,
          403,
          { error: 'This API key lacks the required scope: video-editor:read', required_scope: 'video-editor:read' },
        ]);
      }
    });
  });

  describe('export', () => {
    it("answers 404 without an export code for a project that does not exist (the contract's 404 row)", async () => {
      const user = await userWithKey(fleet, EDITOR);
      const res = await api(fleet, 'POST', `${PROJECTS}/prj_abc/export`, { key: user.key, body: {} });
      expect([res.status, res.body]).toEqual([404, { error: 'Project not found' }]);
    });
  });

  describe('direct edits', () => {
    let user: TestUser;
    let projectId: string;
    let mainVideo: string;
    let secondVideo: string;

    beforeAll(async () => {
      user = await userWithKey(fleet, EDITOR);
      const p = await create(user, { name: 'Timeline' });
      projectId = p.id;
      mainVideo = (await getState(user, projectId)).videos[0].id;
    });

    it('creates a second video in the project format, and one named "Untitled video" by default', async () => {
      const named = await api(fleet, 'POST', `${PROJECTS}/${projectId}/videos`, {
        key: user.key,
        body: { name: 'B-roll' },
      });
      expect(named.status).toBe(200);
      expect(named.body).toEqual({
        video: { id: expect.any(String), name: 'B-roll', aspect_ratio: '9:16', created_at: expect.stringMatching(ISO) },
      });
      secondVideo = named.body.video.id;
      const unnamed = await api(fleet, 'POST', `${PROJECTS}/${projectId}/videos`, { key: user.key });
      expect(unnamed.body.video).toMatchObject({ name: 'Untitled video', aspect_ratio: '9:16' });
      const state = await getState(user, projectId);
      expect(state.videos.map((v: { id: string; name: string }) => [v.id, v.name])).toEqual([
        [mainVideo, 'Main video'],
        [secondVideo, 'B-roll'],
        [unnamed.body.video.id, 'Untitled video'],
      ]);
    });

    it('renames the project and a video', async () => {
      const project = await api(fleet, 'PATCH', `${PROJECTS}/${projectId}`, {
        key: user.key,
        body: { name: 'Timeline v2' },
      });
      expect(project.status).toBe(200);
      expect(project.body).toEqual({
        project: expect.objectContaining({ id: projectId, name: 'Timeline v2', aspect_ratio: '9:16' }),
      });
      expect(Object.keys(project.body.project).sort()).toEqual(PROJECT_FIELDS);
      const video = await api(fleet, 'PATCH', `${PROJECTS}/${projectId}/videos/${secondVideo}`, {
        key: user.key,
        body: { name: 'Cutaways' },
      });
      expect(video.status).toBe(200);
      expect(video.body).toEqual({
        video: { id: secondVideo, name: 'Cutaways', aspect_ratio: '9:16', created_at: expect.stringMatching(ISO) },
      });
      const state = await getState(user, projectId);
      expect(state.project.name).toBe('Timeline v2');
      expect(state.videos.find((v: { id: string }) => v.id === secondVideo).name).toBe('Cutaways');
      expect(state.videos.find((v: { id: string }) => v.id === mainVideo).name).toBe('Main video');
    });

    it('answers 404 "Video not found" for a video that is not in the project', async () => {
      const res = await api(fleet, 'PATCH', `${PROJECTS}/${projectId}/videos/vid_doesnotexist`, {
        key: user.key,
        body: { name: 'x' },
      });
      expect([res.status, res.body]).toEqual([404, { error: 'Video not found' }]);
    });

    it('imports an image from a https URL into the library, stored and served by us', async () => {
      const res = await api(fleet, 'POST', `${PROJECTS}/${projectId}/assets`, { key: user.key, body: { url: pngUrl } });
      expect(res.status).toBe(200);
      const asset = res.body.asset;
      expect(asset).toEqual({
        id: expect.any(String),
        kind: 'image',
        source: 'import',
        url: expect.stringMatching(new RegExp(`^${fleet.baseUrl}/media/`)),
        metadata: expect.objectContaining({ width: 640, height: 480 }),
        created_at: expect.any(String),
      });
      expect(ref.requests()).toContain('/ref.png');
      const media = await downloadAndProbe(asset.url);
      expect(media.probe.video).toMatchObject({ width: 640, height: 480, codec: 'png' });
      expect((await getState(user, projectId)).assets).toEqual([asset]);
    });

    it('inserts clips on the video track, shifting the others; moves and removes them, keeping the track numbered 0..n-1', async () => {
      const asset = await importPng(user, projectId);
      const first = await addClip(user, projectId, { track: 'video', asset_id: asset.id });
      const second = await addClip(user, projectId, { track: 'video', asset_id: asset.id, duration_sec: 2.5 });
      expect(first).toMatchObject({ video_id: mainVideo, track: 'video', idx: 0, asset_id: asset.id });
      expect(second).toMatchObject({
        video_id: mainVideo,
        track: 'video',
        idx: 1,
        asset_id: asset.id,
        duration_sec: 2.5,
      });

      const inserted = await addClip(user, projectId, { track: 'video', asset_id: asset.id, idx: 0 });
      expect(inserted.idx).toBe(0);
      let clips = (await getState(user, projectId)).clips;
      expect(track(clips, mainVideo)).toEqual([
        [inserted.id, 0],
        [first.id, 1],
        [second.id, 2],
      ]);

      const moved = await api(fleet, 'PATCH', `${PROJECTS}/${projectId}/clips/${inserted.id}`, {
        key: user.key,
        body: { idx: 2 },
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toEqual({
        clip: expect.objectContaining({ id: inserted.id, idx: 2, track: 'video', video_id: mainVideo }),
      });
      clips = (await getState(user, projectId)).clips;
      expect(track(clips, mainVideo)).toEqual([
        [first.id, 0],
        [second.id, 1],
        [inserted.id, 2],
      ]);

      const removed = await api(fleet, 'DELETE', `${PROJECTS}/${projectId}/clips/${first.id}`, { key: user.key });
      expect([removed.status, removed.body]).toEqual([200, { removed: true }]);
      clips = (await getState(user, projectId)).clips;
      expect(track(clips, mainVideo)).toEqual([
        [second.id, 0],
        [inserted.id, 1],
      ]);
      // The asset stays in the library.
      expect((await getState(user, projectId)).assets.map((a: { id: string }) => a.id)).toContain(asset.id);

      const again = await api(fleet, 'DELETE', `${PROJECTS}/${projectId}/clips/${first.id}`, { key: user.key });
      expect([again.status, again.body]).toEqual([404, { error: 'Clip not found' }]);
    });

    it('narrows the clips to one video with video_id, and shows every video without it', async () => {
      const asset = await importPng(user, projectId);
      const onSecond = await addClip(user, projectId, { video_id: secondVideo, track: 'video', asset_id: asset.id });
      expect(onSecond).toMatchObject({ video_id: secondVideo, idx: 0 });

      const narrowed = await getState(user, projectId, `?video_id=${secondVideo}`);
      expect(narrowed.clips.map((c: ClipLike) => c.id)).toEqual([onSecond.id]);
      // Videos and library are the whole project's either way.
      expect(narrowed.videos).toHaveLength(3);
      const main = await getState(user, projectId, `?video_id=${mainVideo}`);
      expect(main.clips.length).toBeGreaterThan(0);
      expect(main.clips.every((c: ClipLike) => c.video_id === mainVideo)).toBe(true);
      const all = await getState(user, projectId);
      expect(all.clips).toHaveLength(main.clips.length + 1);

      const unknown = await api(fleet, 'GET', `${PROJECTS}/${projectId}?video_id=vid_doesnotexist`, { key: user.key });
      expect([unknown.status, unknown.body]).toEqual([404, { error: 'Video not found' }]);
    });

    it('deletes an asset with its clips, renumbering the tracks it left', async () => {
      const p = await create(user, { name: 'Delete me' });
      const video = (await getState(user, p.id)).videos[0].id;
      const doomed = await importPng(user, p.id);
      const kept = await importPng(user, p.id);
      await addClip(user, p.id, { track: 'video', asset_id: doomed.id });
      const keptClip = await addClip(user, p.id, { track: 'video', asset_id: kept.id });
      await addClip(user, p.id, { track: 'video', asset_id: doomed.id });
      expect(keptClip.idx).toBe(1);

      const res = await api(fleet, 'DELETE', `${PROJECTS}/${p.id}/assets/${doomed.id}`, { key: user.key });
      expect([res.status, res.body]).toEqual([200, { deleted: true, clips_removed: 2 }]);
      const state = await getState(user, p.id);
      expect(state.assets.map((a: { id: string }) => a.id)).toEqual([kept.id]);
      expect(track(state.clips, video)).toEqual([[keptClip.id, 0]]);
      const media = await fetch(doomed.url);
      expect(media.status).toBe(404);

      const again = await api(fleet, 'DELETE', `${PROJECTS}/${p.id}/assets/${doomed.id}`, { key: user.key });
      expect([again.status, again.body]).toEqual([404, { error: 'Asset not found' }]);
    });

    it("answers 404 to a clip of another project's asset, adding nothing", async () => {
      const other = await create(user, { name: 'Other library' });
      const foreign = await importPng(user, other.id);
      const before = await getState(user, projectId);
      const res = await api(fleet, 'POST', `${PROJECTS}/${projectId}/clips`, {
        key: user.key,
        body: { track: 'video', asset_id: foreign.id },
      });
      expect([res.status, res.body]).toEqual([404, { error: 'Asset not found' }]);
      expect(await getState(user, projectId)).toEqual(before);
    });

    it('replaces the context, and clears it with an empty one', async () => {
      const context = '# Brief\n\nA sunny product teaser, upbeat music.';
      const res = await api(fleet, 'PUT', `${PROJECTS}/${projectId}/context`, {
        key: user.key,
        body: { context_md: context },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ project: expect.objectContaining({ id: projectId, context_md: context }) });
      expect((await getState(user, projectId)).project.context_md).toBe(context);
      const cleared = await api(fleet, 'PUT', `${PROJECTS}/${projectId}/context`, {
        key: user.key,
        body: { context_md: '' },
      });
      expect(cleared.body.project.context_md).toBe('');
    });

    it('sets the aspect ratio of the project and of every one of its videos', async () => {
      const res = await api(fleet, 'PUT', `${PROJECTS}/${projectId}/aspect-ratio`, {
        key: user.key,
        body: { aspect_ratio: '16:9' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ project: expect.objectContaining({ id: projectId, aspect_ratio: '16:9' }) });
      const state = await getState(user, projectId);
      expect(state.project.aspect_ratio).toBe('16:9');
      expect(state.videos.map((v: { aspect_ratio: string }) => v.aspect_ratio)).toEqual(['16:9', '16:9', '16:9']);
      expect((await list(user)).find((s: { id: string }) => s.id === projectId).aspect_ratio).toBe('16:9');
      // A video created afterwards takes the new format too.
      const later = await api(fleet, 'POST', `${PROJECTS}/${projectId}/videos`, {
        key: user.key,
        body: { name: 'Later' },
      });
      expect(later.body.video.aspect_ratio).toBe('16:9');
    });
  });

  describe("another user's project", () => {
    it('is a 404 "Project not found" for get, instruct and every direct edit, and stays unchanged', async () => {
      const owner = await userWithKey(fleet, EDITOR);
      const intruder = await userWithKey(fleet, EDITOR, 100);
      const p = await create(owner, { name: 'Private' });
      const video = (await getState(owner, p.id)).videos[0].id;
      const asset = await importPng(owner, p.id);
      const clip = await addClip(owner, p.id, { track: 'video', asset_id: asset.id });
      const before = await getState(owner, p.id);
      const fetchesBefore = ref.requests().length;
      const credits = await balance(fleet, intruder.key);

      const base = `${PROJECTS}/${p.id}`;
      const attempts: [string, string, unknown][] = [
        ['GET', base, undefined],
        ['GET', `${base}?video_id=${video}`, undefined],
        ['POST', `${base}/instruct`, { instruction: 'delete everything' }],
        ['POST', `${base}/videos`, { name: 'mine now' }],
        ['PATCH', base, { name: 'mine now' }],
        ['PATCH', `${base}/videos/${video}`, { name: 'mine now' }],
        ['POST', `${base}/assets`, { url: pngUrl }],
        ['DELETE', `${base}/assets/${asset.id}`, undefined],
        ['POST', `${base}/clips`, { track: 'video', asset_id: asset.id }],
        ['PATCH', `${base}/clips/${clip.id}`, { idx: 0 }],
        ['DELETE', `${base}/clips/${clip.id}`, undefined],
        ['PUT', `${base}/context`, { context_md: 'mine now' }],
        ['PUT', `${base}/aspect-ratio`, { aspect_ratio: '1:1' }],
      ];
      const answers = [];
      for (const [method, path, body] of attempts) {
        const res = await api(fleet, method, path, { key: intruder.key, body });
        answers.push([method, path, res.status, res.body]);
      }
      // What must not have happened first, so a wrong status below cannot hide a change.
      expect(await getState(owner, p.id)).toEqual(before);
      expect(ref.requests().length).toBe(fetchesBefore);
      expect(await balance(fleet, intruder.key)).toBe(credits);
      expect(await list(intruder)).toEqual([]);
      expect(answers).toEqual(attempts.map(([method, path]) => [method, path, 404, { error: 'Project not found' }]));
    });
  });
});
