import type { Bus } from '@mf/bus';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { ROUTING_KEYS, type ExportStatus } from '@mf/contracts';
import { EventHub } from '../core/events/event-hub';
import { TurnEvents } from '../core/events/turn-events';
import { startEndpoint, type Endpoint } from '../../test/support/mcp-endpoint';

const PRJ = 'prj_abc123';
const EXPORT_URL = 'https://media.example/media/exports/exp_1.mp4';

const exportAt = (
  status: ExportStatus['status'],
  progress: number,
  more: Partial<ExportStatus> = {},
): ExportStatus => ({
  export_id: 'exp_1',
  project_id: PRJ,
  video_id: 'vid_1',
  status,
  progress,
  asset_id: null,
  video_url: null,
  duration_sec: null,
  error: null,
  created_at: '2026-11-29T10:00:00.000Z',
  completed_at: null,
  ...more,
});

const completed = exportAt('completed', 100, { asset_id: 'ast_exp', video_url: EXPORT_URL, duration_sec: 6 });

/** The project state after the export: its asset's metadata holds the clip counts. */
const stateWithExport = {
  project: { id: PRJ },
  videos: [],
  clips: [],
  assets: [
    { id: 'ast_exp', kind: 'export', url: EXPORT_URL, metadata: { video_clip_count: 2, audio_overlay_count: 1 } },
  ],
};

describe('MCP results and followed calls', () => {
  let endpoint: Endpoint;
  afterEach(() => endpoint.close());

  it('gives each media result as a resource_link and as a plain URL in the text', async () => {
    endpoint = await startEndpoint();
    const client = await endpoint.connect();
    endpoint.answer(() => ({
      job_id: 'job_1',
      status: 'completed',
      type: 'image',
      result: { images: ['https://media.example/media/a.png', 'https://media.example/media/b.webp'] },
    }));
    const job = await client.callTool({ name: 'job_status', arguments: { job_id: 'job_1' } });
    expect(job.content).toEqual([
      { type: 'text', text: expect.stringContaining('"job_id":"job_1"') },
      { type: 'text', text: 'Media:\nhttps://media.example/media/a.png\nhttps://media.example/media/b.webp' },
      { type: 'resource_link', uri: 'https://media.example/media/a.png', name: 'a.png', mimeType: 'image/png' },
      { type: 'resource_link', uri: 'https://media.example/media/b.webp', name: 'b.webp', mimeType: 'image/webp' },
    ]);

    endpoint.answer(() => ({ ...completed, video_clip_count: 2, audio_overlay_count: 1 }));
    const exported = await client.callTool({ name: 'video_editor_export', arguments: { project_id: PRJ } });
    expect(exported.content).toContainEqual({
      type: 'resource_link',
      uri: EXPORT_URL,
      name: 'exp_1.mp4',
      mimeType: 'video/mp4',
    });
    expect(exported.content).toContainEqual({ type: 'text', text: `Media:\n${EXPORT_URL}` });

    endpoint.answer(() => ({ projects: [] }));
    const listed = await client.callTool({ name: 'video_editor_list_projects', arguments: {} });
    expect(listed.content).toHaveLength(1);
  });

  it("reports a followed export's percent rendered and answers the blocking export's reply", async () => {
    const hub = new EventHub();
    endpoint = await startEndpoint({ progressIntervalMs: 60_000, followPollMs: 5, events: hub });
    const reads = [exportAt('rendering', 10), exportAt('rendering', 40), exportAt('rendering', 70)];
    endpoint.answer((method) => {
      if (method === 'startExport') return { export_id: 'exp_1', status: 'rendering', progress: 0 };
      if (method === 'getExport') return reads.shift() ?? completed;
      if (method === 'getProject') return stateWithExport;
      throw new Error(`unexpected ${method}`);
    });
    const client = await endpoint.connect();
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'video_editor_export', arguments: { project_id: PRJ } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(result.structuredContent).toEqual({
      asset_id: 'ast_exp',
      video_url: EXPORT_URL,
      duration_sec: 6,
      video_clip_count: 2,
      audio_overlay_count: 1,
    });
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(progress.map((p) => p.message)).toEqual(
      expect.arrayContaining([
        'video_editor_export: rendering, 10%',
        'video_editor_export: rendering, 40%',
        'video_editor_export: rendering, 70%',
      ]),
    );
    expect(progress.every((p) => p.total === 100)).toBe(true);
    expect(endpoint.calls.map((c) => c.method)).toContain('startExport');
    expect(endpoint.calls.map((c) => c.method)).not.toContain('export');
  });

  it('answers a followed export that fails with the blocking export error and its status', async () => {
    endpoint = await startEndpoint({ followPollMs: 5 });
    const failure = { error: 'corrupt_source', message: 'The video clip at position 0 has no picture.' };
    endpoint.answer((method) =>
      method === 'startExport'
        ? { export_id: 'exp_1', status: 'rendering', progress: 0 }
        : exportAt('failed', 30, { error: failure as ExportStatus['error'] }),
    );
    const client = await endpoint.connect();
    const result = await client.callTool({ name: 'video_editor_export', arguments: { project_id: PRJ } }, undefined, {
      onprogress: () => undefined,
    });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0].text)).toEqual({ status: 422, ...failure });
  });

  it("reports each step of a followed instruct turn as it happens, then answers the turn's reply", async () => {
    const turns = new TurnEvents();
    let deliver: (key: string, payload: unknown) => void = () => undefined;
    await turns.start({
      subscribe: (o: { handle: (key: string, payload: unknown) => void }) => {
        deliver = o.handle;
        return Promise.resolve();
      },
    } as unknown as Bus);
    endpoint = await startEndpoint({ progressIntervalMs: 60_000, turns });
    const reply = { assistant_text: 'Placed it. Export?', agent_events: [], credits_used: 5 };
    endpoint.answer((method, request) => {
      const stream_id = request.stream_id as string;
      const event = (e: Record<string, unknown>) =>
        deliver(ROUTING_KEYS.turnEvent, { stream_id, event: { at: '2026-11-29T10:00:00.000Z', ...e } });
      event({ type: 'step', step: 1 });
      event({ type: 'tool_call', name: 'add_clip', arguments: {} });
      event({ type: 'tool_result', name: 'add_clip', ok: true, summary: 'clip on video track' });
      return reply;
    });
    const client = await endpoint.connect();
    const messages: string[] = [];
    const result = await client.callTool(
      { name: 'video_editor_instruct', arguments: { project_id: PRJ, instruction: 'add the clip' } },
      undefined,
      { onprogress: (p) => messages.push(p.message ?? '') },
    );
    expect(result.structuredContent).toEqual(reply);
    expect(messages).toEqual([
      'video_editor_instruct: step 1',
      'video_editor_instruct: calling add_clip',
      'video_editor_instruct: add_clip done: clip on video track',
    ]);
    expect(endpoint.calls[0]).toMatchObject({ method: 'instruct', request: { stream_id: expect.any(String) } });
  });

  it('waits for a generation with wait: true, reporting its percent, and answers the ended job with its media', async () => {
    const hub = new EventHub();
    endpoint = await startEndpoint({ progressIntervalMs: 60_000, followPollMs: 5, events: hub });
    const job = (status: string, progress: number, result: unknown = null) => ({
      job_id: 'job_w',
      status,
      progress,
      result,
      type: 'video',
    });
    const reads = [job('processing', 20), job('processing', 60)];
    const done = job('completed', 100, { video: 'https://media.example/media/job_w.mp4' });
    endpoint.answer((method) => {
      if (method === 'get') return reads.shift() ?? done;
      return {
        job_id: 'job_w',
        status: 'processing',
        model: 'vidgen-2.0',
        credits_consumed: 1135,
        credits_remaining: 1,
      };
    });
    const client = await endpoint.connect();
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'generate_media', arguments: { type: 'video', prompt: 'a fox', wait: true } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.structuredContent).toMatchObject({ job_id: 'job_w', poll_url: '/api/v1/jobs/job_w', job: done });
    expect(result.content).toContainEqual(expect.objectContaining({ type: 'resource_link', name: 'job_w.mp4' }));
    expect(progress.map((p) => p.message)).toEqual(
      expect.arrayContaining(['generate_media: generating job_w, 20%', 'generate_media: generating job_w, 60%']),
    );
    // The submit took the generation's own fields only, charged once.
    const submits = endpoint.calls.filter((c) => c.method !== 'get');
    expect(submits).toHaveLength(1);
    expect(submits[0].request).not.toHaveProperty('wait');
  });
});
