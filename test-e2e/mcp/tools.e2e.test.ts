import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { balance } from '../support/jobs';
import { downloadAndProbe } from '../support/media';
import { startReferenceServer } from '../support/reference-server';

/**
 * The hosted MCP endpoint end to end, through the SDK's own client: the 17 tools against the real
 * fleet, with the REST API's authentication, scopes, billing and error bodies.
 */

const TOOLS = [
  'generate_media',
  'job_status',
  'list_models',
  'video_editor_add_clip',
  'video_editor_create_project',
  'video_editor_create_video',
  'video_editor_delete_asset',
  'video_editor_export',
  'video_editor_get_state',
  'video_editor_import_asset',
  'video_editor_instruct',
  'video_editor_list_projects',
  'video_editor_move_clip',
  'video_editor_remove_clip',
  'video_editor_rename',
  'video_editor_set_aspect_ratio',
  'video_editor_update_context',
];

/** Renders take longer than the SDK's 60 s default request timeout on a busy machine. */
const LONG = { timeout: 300_000 };

// Tool results are JSON the tests assert field by field, hence `any`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('the MCP endpoint', () => {
  let fleet: PooledFleet;
  let ref: Awaited<ReturnType<typeof startReferenceServer>>;
  let user: TestUser;
  let client: Client;
  const clients: Client[] = [];

  const connect = async (key: string): Promise<Client> => {
    const c = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${fleet.baseUrl}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    // The reference server is on 127.0.0.1: imports from it need private URLs allowed.
    ref = await startReferenceServer();
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'all', 10_000);
    client = await connect(user.key);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await ref?.close();
  });

  /** Calls a tool that must succeed; returns its structured output after checking the text mirror. */
  const call = async (
    name: string,
    args: Record<string, unknown> = {},
    c: Client = client,
    options?: { timeout: number },
  ): Promise<Json> => {
    const result = (await c.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    const [mirror, ...media] = result.content;
    expect(mirror).toEqual({ type: 'text', text: JSON.stringify(result.structuredContent) });
    // A media result also carries its URLs: as plain text, then as resource links.
    const links = media.filter((m) => m.type === 'resource_link').map((m) => m.uri);
    if (media.length) expect(media[0]).toEqual({ type: 'text', text: `Media:\n${links.join('\n')}` });
    expect(media.length).toBe(links.length ? links.length + 1 : 0);
    return result.structuredContent;
  };
  /** Calls a tool that must fail; returns its error as the JSON of its text. */
  const callError = async (name: string, args: Record<string, unknown> = {}, c: Client = client): Promise<Json> => {
    const result = (await c.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError).toBe(true);
    const [first] = result.content;
    if (first.type !== 'text') throw new Error(`expected a text error, got ${first.type}`);
    return JSON.parse(first.text);
  };

  it('lists exactly the 17 tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
  });

  it('lists the models of the catalog with their prices', async () => {
    const { models, price_table } = await call('list_models');
    expect(models.map((m: { id: string }) => m.id)).toEqual(['vidgen-2.0', 'vidgen-2.0-fast', 'imagegen-2']);
    expect(models[2]).toMatchObject({ type: 'image', credits: { per_image: 50 } });
    expect(price_table).toContainEqual({
      model: 'vidgen-2.0',
      resolution: '480p',
      unit: 'second',
      credits_per_unit: 101,
    });
  });

  it('generates an image: the job id at once, charged like REST, then job_status until completed with the image URL', async () => {
    const before = await balance(fleet, user.key);
    const submitted = await call('generate_media', { type: 'image', prompt: 'a lighthouse at dusk', seed: 3 });
    expect(submitted).toEqual({
      job_id: expect.stringMatching(/^job_/),
      status: 'processing',
      model: 'imagegen-2',
      credits_consumed: 50,
      credits_remaining: before - 50,
      poll_url: `/api/v1/jobs/${submitted.job_id}`,
    });
    expect(await balance(fleet, user.key)).toBe(before - 50);

    let job: Json;
    for (const until = Date.now() + 90_000; ; await new Promise((r) => setTimeout(r, 250))) {
      job = await call('job_status', { job_id: submitted.job_id });
      if (job.status !== 'processing' || Date.now() > until) break;
    }
    expect(job).toEqual({
      job_id: submitted.job_id,
      status: 'completed',
      model: 'ImageGen 2',
      type: 'image',
      credits_consumed: 50,
      created_at: expect.any(String),
      completed_at: expect.any(String),
      result: { images: [expect.stringMatching(new RegExp(`^${fleet.baseUrl}/media/`))] },
      error: null,
      input: { prompt: 'a lighthouse at dusk', image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 3 },
      source: 'api',
      project_id: null,
      progress: 100,
    });
    // Without job_id, job_status lists the caller's jobs, newest first (the key has jobs:read).
    const page = await call('job_status', { type: 'image', limit: 1 });
    expect(page).toEqual({ jobs: [job], has_more: expect.any(Boolean) });
    const image = await fetch(job.result.images[0]);
    expect([image.status, image.headers.get('content-type')]).toEqual([200, 'image/png']);
  });

  it('refuses an invalid generation with the contract message, charging nothing', async () => {
    const before = await balance(fleet, user.key);
    expect(await callError('generate_media', { type: 'video', prompt: 'waves', duration_seconds: 7 })).toEqual({
      status: 400,
      error: 'duration_seconds must be one of 4, 5, 6, 8, 10, 15',
    });
    expect(await balance(fleet, user.key)).toBe(before);
  });

  it('builds a project with the direct-edit tools, shows the edits in its state, and exports it to an mp4', async () => {
    const { project } = await call('video_editor_create_project', { name: 'MCP teaser', aspect_ratio: '16:9' });
    expect(project).toMatchObject({
      id: expect.stringMatching(/^prj_/),
      name: 'MCP teaser',
      aspect_ratio: '16:9',
      context_md: '',
    });
    const p = { project_id: project.id };

    const { video: broll } = await call('video_editor_create_video', { ...p, name: 'B-roll' });
    expect(broll).toMatchObject({ id: expect.stringMatching(/^vid_/), name: 'B-roll', aspect_ratio: '16:9' });
    expect((await call('video_editor_rename', { ...p, name: 'MCP teaser v2' })).project.name).toBe('MCP teaser v2');
    expect((await call('video_editor_rename', { ...p, video_id: broll.id, name: 'Cutaways' })).video).toMatchObject({
      id: broll.id,
      name: 'Cutaways',
    });

    const { asset } = await call('video_editor_import_asset', { ...p, url: `${ref.url}/ref.png` });
    expect(asset).toMatchObject({
      id: expect.stringMatching(/^ast_/),
      kind: 'image',
      source: 'import',
      url: expect.stringContaining(`${fleet.baseUrl}/media/`),
    });

    const { clip: first } = await call('video_editor_add_clip', {
      ...p,
      track: 'video',
      asset_id: asset.id,
      duration_sec: 1,
    });
    const { clip: second } = await call('video_editor_add_clip', {
      ...p,
      track: 'video',
      asset_id: asset.id,
      duration_sec: 2,
    });
    expect([first.idx, second.idx]).toEqual([0, 1]);
    expect((await call('video_editor_move_clip', { ...p, clip_id: second.id, idx: 0 })).clip).toMatchObject({
      id: second.id,
      idx: 0,
    });
    expect(await call('video_editor_remove_clip', { ...p, clip_id: first.id })).toEqual({ removed: true });
    const { clip: again } = await call('video_editor_add_clip', {
      ...p,
      track: 'video',
      asset_id: asset.id,
      duration_sec: 1,
    });
    expect(again).toMatchObject({ idx: 1, asset_id: asset.id });

    expect(
      (await call('video_editor_update_context', { ...p, context_md: '# Brief\nA calm teaser.' })).project.context_md,
    ).toBe('# Brief\nA calm teaser.');
    expect((await call('video_editor_set_aspect_ratio', { ...p, aspect_ratio: '1:1' })).project.aspect_ratio).toBe(
      '1:1',
    );

    const state = await call('video_editor_get_state', p);
    expect(state.project).toEqual({
      id: project.id,
      name: 'MCP teaser v2',
      aspect_ratio: '1:1',
      context_md: '# Brief\nA calm teaser.',
    });
    expect(state.videos.map((v: Json) => [v.name, v.aspect_ratio])).toEqual([
      ['Main video', '1:1'],
      ['Cutaways', '1:1'],
    ]);
    const mainVideo = state.videos[0].id;
    expect(state.assets.map((a: Json) => a.id)).toEqual([asset.id]);
    expect(state.clips.map((c: Json) => [c.id, c.video_id, c.track, c.idx, c.duration_sec])).toEqual([
      [second.id, mainVideo, 'video', 0, 2],
      [again.id, mainVideo, 'video', 1, 1],
    ]);
    expect((await call('video_editor_get_state', { ...p, video_id: broll.id })).clips).toEqual([]);
    expect((await call('video_editor_list_projects')).projects).toContainEqual({
      id: project.id,
      name: 'MCP teaser v2',
      aspect_ratio: '1:1',
      updated_at: expect.any(String),
    });

    // A second asset, placed on the other video, then deleted with its clip.
    const { asset: spare } = await call('video_editor_import_asset', { ...p, url: `${ref.url}/ref.png` });
    await call('video_editor_add_clip', { ...p, video_id: broll.id, track: 'video', asset_id: spare.id });
    expect(await call('video_editor_delete_asset', { ...p, asset_id: spare.id })).toEqual({
      deleted: true,
      clips_removed: 1,
    });
    const after = await call('video_editor_get_state', p);
    expect(after.assets.map((a: Json) => a.id)).toEqual([asset.id]);
    expect(after.clips.map((c: Json) => c.id)).toEqual([second.id, again.id]);

    const exported = await call('video_editor_export', p, client, LONG);
    expect(exported).toEqual({
      asset_id: expect.stringMatching(/^ast_/),
      video_url: expect.stringContaining(`${fleet.baseUrl}/media/`),
      duration_sec: expect.any(Number),
      video_clip_count: 2,
      audio_overlay_count: 0,
    });
    expect(Math.abs(exported.duration_sec - 3)).toBeLessThan(0.1);
    const mp4 = await downloadAndProbe(exported.video_url);
    expect(mp4.contentType).toBe('video/mp4');
    expect(mp4.probe.video).toMatchObject({ codec: 'h264' });
    expect(mp4.probe.video!.width).toBe(mp4.probe.video!.height);
  });

  it('answers video_editor_instruct with a tool error while no language model is configured, charging nothing', async () => {
    const { project } = await call('video_editor_create_project', {});
    const before = await balance(fleet, user.key);
    expect(
      await callError('video_editor_instruct', { project_id: project.id, instruction: 'make a teaser' }),
    ).toMatchObject({
      status: 503,
      error: 'The language-model provider is not configured on this server',
    });
    expect(await balance(fleet, user.key)).toBe(before);
  });

  it('refuses video_editor_create_project to a key without video-editor:write, naming the scope', async () => {
    const reader = await userWithKey(fleet, 'video-editor:read');
    const readOnly = await connect(reader.key);
    expect(await callError('video_editor_create_project', { name: 'Nope' }, readOnly)).toEqual({
      status: 403,
      error: 'This API key lacks the required scope: video-editor:write',
      required_scope: 'video-editor:write',
    });
    expect(await call('video_editor_list_projects', {}, readOnly)).toEqual({ projects: [] });
  });

  it("does not show another user's project or job", async () => {
    const other = await connect((await userWithKey(fleet, 'all')).key);
    const { project } = await call('video_editor_create_project', {});
    expect(await callError('video_editor_get_state', { project_id: project.id }, other)).toEqual({
      status: 404,
      error: 'Project not found',
    });
    const { job_id } = await call('generate_media', { type: 'image', prompt: 'a private sketch' });
    expect(await callError('job_status', { job_id }, other)).toEqual({ status: 404, error: 'Job not found' });
  });

  it('answers an invalid key with HTTP 401 and the protected-resource metadata challenge', async () => {
    const res = await fetch(`${fleet.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer mf_not_a_real_key',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${fleet.baseUrl}/.well-known/oauth-protected-resource/api/mcp", error="invalid_token"`,
    );
    expect(await res.json()).toEqual({ error: 'Invalid or revoked API key' });

    const rejected = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${fleet.baseUrl}/api/mcp`), {
      requestInit: { headers: { Authorization: 'Bearer mf_not_a_real_key' } },
    });
    await expect(rejected.connect(transport)).rejects.toMatchObject({ code: 401 });
  });

  it('goes through the rate limit like REST (headers on every answer) and answers GET with 405', async () => {
    const res = await fetch(`${fleet.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${user.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fetch', version: '1' } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100000');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    await res.body?.cancel();
    const get = await fetch(`${fleet.baseUrl}/api/mcp`, {
      headers: { authorization: `Bearer ${user.key}`, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
    expect(await get.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed.' },
      id: null,
    });
  });
});
