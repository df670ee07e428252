import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { editorRpc, jobsRpc } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { startEndpoint, TIMEOUTS, type Endpoint } from '../../test/support/mcp-endpoint';

const PRJ = 'prj_abc123';

const TOOL_NAMES = [
  'list_models',
  'job_status',
  'generate_media',
  'video_editor_create_project',
  'video_editor_list_projects',
  'video_editor_get_state',
  'video_editor_instruct',
  'video_editor_export',
  'video_editor_create_video',
  'video_editor_rename',
  'video_editor_import_asset',
  'video_editor_delete_asset',
  'video_editor_add_clip',
  'video_editor_move_clip',
  'video_editor_remove_clip',
  'video_editor_update_context',
  'video_editor_set_aspect_ratio',
];

function errorOf(result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const [first] = result.content;
  if (first.type !== 'text') throw new Error(`expected a text error, got ${first.type}`);
  return JSON.parse(first.text) as Record<string, unknown>;
}

describe('the MCP endpoint', () => {
  let endpoint: Endpoint;
  let client: Client;
  beforeAll(async () => {
    endpoint = await startEndpoint();
    client = await endpoint.connect();
  });
  afterAll(() => endpoint.close());
  beforeEach(() => {
    endpoint.calls.length = 0;
    endpoint.answer((method) => ({ echoed: method }));
  });

  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  it('lists exactly the 17 tools, each described, with a closed input schema and an output schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect([tool.name, (tool.description ?? '').length > 80]).toEqual([tool.name, true]);
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
    }
    const generate = tools.find((t) => t.name === 'generate_media')!;
    expect(generate.inputSchema.required).toEqual(['type', 'prompt']);
    expect(generate.inputSchema.properties?.duration_seconds).toMatchObject({
      type: 'integer',
      enum: [4, 5, 6, 8, 10, 15],
      default: 5,
    });
    const addClip = tools.find((t) => t.name === 'video_editor_add_clip')!;
    expect(addClip.inputSchema.required).toEqual(['project_id', 'track', 'asset_id']);
    expect(addClip.inputSchema.properties?.track).toMatchObject({ enum: ['video', 'voice', 'sfx', 'music'] });
  });

  it('submits an image through the same use case as REST and answers the job at once, structured and as text', async () => {
    const reply = {
      job_id: 'job_1',
      status: 'processing',
      model: 'imagegen-2',
      credits_consumed: 100,
      credits_remaining: 900,
    };
    endpoint.answer(() => reply);
    const result = await call('generate_media', { type: 'image', prompt: 'a lighthouse', num_images: 2 });
    const expected = { ...reply, poll_url: '/api/v1/jobs/job_1' };
    expect(result.structuredContent).toEqual(expected);
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(expected) }]);
    expect(endpoint.calls).toEqual([
      {
        queue: jobsRpc.queue,
        method: 'submit',
        request: {
          user_id: 7,
          api_key_id: 70,
          type: 'image',
          params: {
            prompt: 'a lighthouse',
            image_urls: [],
            num_images: 2,
            aspect_ratio: '1:1',
            seed: expect.any(Number),
          },
        },
        timeoutMs: TIMEOUTS.submitTimeoutMs,
      },
    ]);
  });

  it.each([
    [{ type: 'video', prompt: 'waves', duration_seconds: 7 }, 'duration_seconds must be one of 4, 5, 6, 8, 10, 15'],
    [
      { type: 'video', prompt: 'waves', fast: true, image_url: 'https://x.test/a.png' },
      'fast mode supports text-to-video only (no image_url)',
    ],
    [
      { type: 'video', prompt: 'waves', num_images: 2 },
      'unknown field: num_images (accepted: prompt, image_url, fast, duration_seconds, aspect_ratio, resolution, generate_audio, seed)',
    ],
    [{ type: 'image', prompt: '' }, 'prompt is required (non-empty string)'],
    [{ type: 'audio', prompt: 'a song' }, 'type must be one of image, video'],
  ])('refuses %j with the contract message as a 400 tool error, charging nothing', async (args, message) => {
    expect(errorOf(await call('generate_media', args))).toEqual({ status: 400, error: message });
    expect(endpoint.calls).toEqual([]);
  });

  it('passes insufficient credits on as a tool error with credits_required and credits_remaining', async () => {
    endpoint.answer(() => {
      throw AppError.insufficientCredits(1135, 200);
    });
    expect(errorOf(await call('generate_media', { type: 'video', prompt: 'waves' }))).toEqual({
      status: 402,
      error: 'Insufficient credits',
      credits_required: 1135,
      credits_remaining: 200,
    });
  });

  it('quotes a server-side failure with the request id and keeps the detail out of the answer', async () => {
    endpoint.answer(() => {
      throw new Error('connection string postgres://secret');
    });
    const error = errorOf(await call('video_editor_list_projects'));
    expect(error).toEqual({ status: 500, error: 'Internal error', request_id: expect.any(String) });
  });

  it('answers a 503 of the service (no language model) as a tool error with its message and retry hint', async () => {
    endpoint.answer(() => {
      throw AppError.unavailable('The language-model provider is not configured on this server');
    });
    expect(errorOf(await call('video_editor_instruct', { project_id: PRJ, instruction: 'a teaser' }))).toEqual({
      status: 503,
      error: 'The language-model provider is not configured on this server',
      retry_after: 2,
      request_id: expect.any(String),
    });
  });

  const job = {
    job_id: 'job_1',
    status: 'completed',
    model: 'ImageGen 2',
    type: 'image',
    credits_consumed: 50,
    created_at: '2026-11-24T01:00:00.000Z',
    completed_at: '2026-11-24T01:00:05.000Z',
    result: { images: ['https://x.test/1.png'] },
    error: null,
    input: { prompt: 'a fox', image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 4 },
    source: 'api',
    project_id: null,
    progress: 100,
  };

  it('reads a job of the caller, and answers an id that cannot exist with "Job not found" without asking', async () => {
    endpoint.answer(() => job);
    expect((await call('job_status', { job_id: 'job_1' })).structuredContent).toEqual(job);
    expect(errorOf(await call('job_status', { job_id: 'nope' }))).toEqual({ status: 404, error: 'Job not found' });
    expect(endpoint.calls.map((c) => [c.method, c.request])).toEqual([['get', { user_id: 7, job_id: 'job_1' }]]);
  });

  it('lists the jobs of the caller without job_id, with the REST filters, and needs jobs:read for it', async () => {
    endpoint.answer(() => ({ jobs: [{ ...job, api_key_id: 70 }], has_more: true }));
    const page = await call('job_status', { status: 'completed', type: 'image', limit: 1, starting_after: 'job_9' });
    // The same Job objects as job_status with an id: which key made a job stays the dashboard's business.
    expect(page.structuredContent).toEqual({ jobs: [job], has_more: true });
    expect(endpoint.calls.map((c) => [c.method, c.request])).toEqual([
      ['list', { user_id: 7, limit: 1, before: 'job_9', status: 'completed', type: 'image' }],
    ]);
    expect(errorOf(await call('job_status', { job_id: 'job_1', status: 'failed' }))).toEqual({
      status: 400,
      error: 'job_id cannot be combined with status (leave job_id out to list jobs)',
    });
    expect(errorOf(await call('job_status', { limit: 500 }))).toEqual({
      status: 400,
      error: 'limit must be an integer between 1 and 100',
    });
    // Types are strict, as in a JSON body: "5" is not 5.
    expect(errorOf(await call('job_status', { limit: '5' }))).toEqual({
      status: 400,
      error: 'limit must be an integer between 1 and 100',
    });
    expect(errorOf(await call('job_status', { status: 3 }))).toEqual({ status: 400, error: 'status must be a string' });
    const reader = await endpoint.connect('key-read');
    expect(errorOf((await reader.callTool({ name: 'job_status', arguments: {} })) as CallToolResult)).toMatchObject({
      status: 403,
      required_scope: 'jobs:read',
    });
  });

  it('lists the models of the catalog', async () => {
    const result = await call('list_models');
    expect((result.structuredContent?.models as { id: string }[]).map((m) => m.id)).toEqual([
      'vidgen-2.0',
      'vidgen-2.0-fast',
      'imagegen-2',
    ]);
  });

  it('adds a price table to the models, from the catalog: per second of video at each resolution, per image', async () => {
    const result = await call('list_models');
    expect(result.structuredContent?.price_table).toEqual([
      { model: 'vidgen-2.0', resolution: '720p', unit: 'second', credits_per_unit: 227 },
      { model: 'vidgen-2.0', resolution: '480p', unit: 'second', credits_per_unit: 101 },
      { model: 'vidgen-2.0-fast', resolution: '720p', unit: 'second', credits_per_unit: 181 },
      { model: 'vidgen-2.0-fast', resolution: '480p', unit: 'second', credits_per_unit: 181 },
      { model: 'imagegen-2', resolution: null, unit: 'image', credits_per_unit: 50 },
    ]);
    expect(result.structuredContent?.price_rule).toMatch(/credits_per_unit x duration_seconds/);
  });

  describe('editor tools', () => {
    // [tool, arguments, RPC method, RPC request fields besides user_id and project_id, timeout]
    const cases: [string, Record<string, unknown>, string, Record<string, unknown>, number | undefined][] = [
      [
        'video_editor_create_project',
        { name: 'Teaser', aspect_ratio: '16:9' },
        'createProject',
        { name: 'Teaser', description: null, aspect_ratio: '16:9' },
        undefined,
      ],
      [
        'video_editor_get_state',
        { project_id: PRJ, video_id: 'vid_2' },
        'getProject',
        { video_id: 'vid_2' },
        undefined,
      ],
      [
        'video_editor_instruct',
        { project_id: PRJ, instruction: 'a teaser' },
        'instruct',
        { api_key_id: 70, instruction: 'a teaser', image_urls: [] },
        TIMEOUTS.instructTimeoutMs,
      ],
      ['video_editor_export', { project_id: PRJ }, 'export', { fit: 'fit' }, TIMEOUTS.exportTimeoutMs],
      ['video_editor_create_video', { project_id: PRJ }, 'createVideo', { name: 'Untitled video' }, undefined],
      ['video_editor_rename', { project_id: PRJ, name: 'New' }, 'rename', { name: 'New' }, undefined],
      [
        'video_editor_rename',
        { project_id: PRJ, video_id: 'vid_2', name: 'Cut 2' },
        'rename',
        { video_id: 'vid_2', name: 'Cut 2' },
        undefined,
      ],
      [
        'video_editor_import_asset',
        { project_id: PRJ, url: 'https://x.test/a.png' },
        'importAsset',
        { url: 'https://x.test/a.png' },
        TIMEOUTS.importTimeoutMs,
      ],
      [
        'video_editor_delete_asset',
        { project_id: PRJ, asset_id: 'ast_1' },
        'deleteAsset',
        { asset_id: 'ast_1' },
        undefined,
      ],
      [
        'video_editor_add_clip',
        { project_id: PRJ, track: 'video', asset_id: 'ast_1', duration_sec: 2 },
        'addClip',
        { track: 'video', asset_id: 'ast_1', duration_sec: 2 },
        undefined,
      ],
      [
        'video_editor_move_clip',
        { project_id: PRJ, clip_id: 'clp_1', idx: 0 },
        'moveClip',
        { clip_id: 'clp_1', idx: 0 },
        undefined,
      ],
      [
        'video_editor_remove_clip',
        { project_id: PRJ, clip_id: 'clp_1' },
        'removeClip',
        { clip_id: 'clp_1' },
        undefined,
      ],
      [
        'video_editor_update_context',
        { project_id: PRJ, context_md: '# Brief' },
        'updateContext',
        { context_md: '# Brief' },
        undefined,
      ],
      [
        'video_editor_set_aspect_ratio',
        { project_id: PRJ, aspect_ratio: '1:1' },
        'setAspectRatio',
        { aspect_ratio: '1:1' },
        undefined,
      ],
    ];

    it.each(cases)("%s %j makes the REST twin's RPC", async (tool, args, method, fields, timeoutMs) => {
      // The output schemas are checked for real (by both SDK ends): this reply fits every tool's.
      const project = {
        id: PRJ,
        name: 'n',
        aspect_ratio: '9:16',
        context_md: '',
        created_at: '2026-11-24T01:00:00.000Z',
        updated_at: '2026-11-24T01:00:00.000Z',
      };
      const replies: Record<string, unknown> = {
        createProject: { project },
        getProject: { project, videos: [], assets: [], clips: [] },
        instruct: {
          assistant_text: 'ok?',
          assets_created: [],
          clips_created: [],
          context_appended: false,
          aspect_ratio_changed: null,
          media_gen_done: false,
          agent_events: [],
        },
        export: {
          asset_id: 'ast_9',
          video_url: 'https://x.test/e.mp4',
          duration_sec: 3,
          video_clip_count: 1,
          audio_overlay_count: 0,
        },
        createVideo: {
          video: { id: 'vid_2', name: 'Untitled video', aspect_ratio: '9:16', created_at: '2026-11-24T01:00:00.000Z' },
        },
        rename: { project },
        importAsset: {
          asset: {
            id: 'ast_1',
            kind: 'image',
            source: 'import',
            url: 'https://x.test/a.png',
            metadata: {},
            created_at: '2026-11-24T01:00:00.000Z',
          },
        },
        deleteAsset: { deleted: true, clips_removed: 0 },
        addClip: {
          clip: {
            id: 'clp_1',
            video_id: 'vid_1',
            track: 'video',
            idx: 0,
            asset_id: 'ast_1',
            duration_sec: 2,
            start_sec: null,
            volume: 1,
          },
        },
        moveClip: {
          clip: {
            id: 'clp_1',
            video_id: 'vid_1',
            track: 'video',
            idx: 0,
            asset_id: 'ast_1',
            duration_sec: null,
            start_sec: null,
            volume: 1,
          },
        },
        removeClip: { removed: true },
        updateContext: { project },
        setAspectRatio: { project },
      };
      endpoint.answer((m) => replies[m]);
      const result = await call(tool, args);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(replies[method]);
      const owner = method === 'createProject' ? { user_id: 7 } : { user_id: 7, project_id: PRJ };
      expect(endpoint.calls).toEqual([{ queue: editorRpc.queue, method, request: { ...owner, ...fields }, timeoutMs }]);
    });

    it.each([
      [
        'video_editor_add_clip',
        { project_id: PRJ, track: 'subtitles', asset_id: 'ast_1' },
        400,
        'track must be one of video, voice, sfx, music',
      ],
      [
        'video_editor_move_clip',
        { project_id: PRJ, clip_id: 'clp_1', idx: -1 },
        400,
        'idx must be an integer of at least 0',
      ],
      ['video_editor_import_asset', { project_id: PRJ, url: 'http://x.test/a.png' }, 400, 'url must be a https URL'],
      [
        'video_editor_create_project',
        { title: 'x' },
        400,
        'unknown field: title (accepted: name, description, aspect_ratio)',
      ],
      ['video_editor_instruct', { project_id: PRJ, instruction: '  ' }, 400, 'instruction or image_urls is required'],
      ['video_editor_get_state', { project_id: 'p1' }, 404, 'Project not found'],
      ['video_editor_remove_clip', { project_id: PRJ }, 404, 'Clip not found'],
    ])('%s %j: %i "%s", without calling the service', async (tool, args, status, message) => {
      expect(errorOf(await call(tool, args))).toEqual({ status, error: message });
      expect(endpoint.calls).toEqual([]);
    });
  });

  it('refuses a tool whose scope the key lacks, naming the scope, before anything else', async () => {
    const readOnly = await endpoint.connect('key-read');
    endpoint.answer(() => ({ projects: [] }));
    const write = (await readOnly.callTool({ name: 'video_editor_create_project', arguments: {} })) as CallToolResult;
    expect(errorOf(write)).toEqual({
      status: 403,
      error: 'This API key lacks the required scope: video-editor:write',
      required_scope: 'video-editor:write',
    });
    const video = (await readOnly.callTool({
      name: 'generate_media',
      arguments: { type: 'video', prompt: 'x' },
    })) as CallToolResult;
    expect(errorOf(video)).toMatchObject({ status: 403, required_scope: 'video:write' });
    const read = (await readOnly.callTool({ name: 'video_editor_list_projects', arguments: {} })) as CallToolResult;
    expect(read.isError).toBeFalsy();
    expect(endpoint.calls.map((c) => c.method)).toEqual(['listProjects']);
  });

  it('accepts a token any verifier of the list knows (an OAuth token after the API keys)', async () => {
    const viaOAuth = await endpoint.connect('oauth-all');
    endpoint.answer(() => ({ projects: [] }));
    await viaOAuth.callTool({ name: 'video_editor_list_projects', arguments: {} });
    expect(endpoint.calls.map((c) => c.request)).toEqual([{ user_id: 8 }]);
  });
});

describe('HTTP behaviour of the MCP endpoint', () => {
  let endpoint: Endpoint;
  afterEach(() => endpoint.close());

  const initialize = (token?: string) =>
    fetch(endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
      }),
    });

  it('answers 401 with the protected-resource metadata challenge to a missing or unknown token', async () => {
    endpoint = await startEndpoint();
    const metadata = 'https://media.example/.well-known/oauth-protected-resource/api/mcp';
    const missing = await initialize();
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadata}"`);
    expect(await missing.json()).toEqual({ error: 'Missing Authorization header' });
    const unknown = await initialize('not-a-key');
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadata}", error="invalid_token"`,
    );
    expect(await unknown.json()).toEqual({ error: 'Invalid or revoked API key' });
    expect(endpoint.usage).toEqual([]);
  });

  it.each(['GET', 'DELETE'])(
    'answers %s with 405 and a JSON-RPC error (stateless: no session, no stream)',
    async (method) => {
      endpoint = await startEndpoint();
      const res = await fetch(endpoint.url, {
        method,
        headers: { authorization: 'Bearer key-all', accept: 'text/event-stream' },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed.' },
        id: null,
      });
    },
  );

  it('answers an empty JSON-RPC batch with 400 Invalid Request, not 202', async () => {
    endpoint = await startEndpoint();
    const res = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer key-all',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '[]',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: empty batch' },
      id: null,
    });
    expect(endpoint.calls).toEqual([]);
  });

  it('answers tools/call with malformed params with JSON-RPC "Invalid params" (-32602), not an internal error', async () => {
    endpoint = await startEndpoint();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 42 } });
    const res = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer key-all',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32602, message: 'Invalid params: params.name must be a string (the tool name)' },
    });
    expect(endpoint.calls).toEqual([]);
  });

  it('refuses a NUL in tool arguments with 400 naming the argument, before any tool runs', async () => {
    endpoint = await startEndpoint();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'video_editor_create_project', arguments: { name: 'a\u0000b' } },
    });
    const res = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer key-all',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'params.arguments.name must not contain control characters' });
    expect(endpoint.calls).toEqual([]);
  });

  it('records one usage row per HTTP request and applies the per-key rate limit', async () => {
    endpoint = await startEndpoint({ limit: 1 });
    const first = await initialize('key-all');
    expect(first.status).toBe(200);
    expect(first.headers.get('mcp-session-id')).toBeNull();
    const second = await initialize('key-all');
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
    await new Promise((r) => setTimeout(r, 20)); // usage rows are written when each response finishes
    expect(endpoint.usage.map((u) => [u.api_key_id, u.method, u.path, u.status])).toEqual([
      [70, 'POST', '/api/mcp', 200],
      [70, 'POST', '/api/mcp', 429],
    ]);
  });
});
