import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Knex } from '@mf/db';
import { MCP_TASKS_TABLE, postgresTaskStore } from '../src/mcp/tasks/postgres-task-store';
import type { Endpoint } from './support/mcp-endpoint';
import { startTaskReplicas, type TaskReplicas } from './support/task-replicas';

const PRJ = 'prj_abc123';
const REPLY = {
  asset_id: 'ast_exp',
  video_url: 'https://media.example/media/exports/exp_1.mp4',
  duration_sec: 6,
  video_clip_count: 2,
  audio_overlay_count: 0,
};

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A task-augmented tools/call, read to its end: the messages the SDK's client yields. */
async function callAsTask(client: Client, name: string, args: Record<string, unknown>) {
  const messages: { type: string; task?: { taskId: string; status: string }; result?: CallToolResult }[] = [];
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  for await (const m of stream) messages.push(m);
  return messages;
}

describe('MCP tools called as tasks (Postgres task store)', () => {
  let replicas: TaskReplicas;
  let db: Knex;
  let a: Endpoint;
  let b: Endpoint;
  let release: () => void = () => undefined;

  beforeAll(async () => {
    // Two replicas sharing the database: a task started on one is read on the other.
    replicas = await startTaskReplicas();
    ({ db, a, b } = replicas);
    // The export renders (a background export read until it ends) until the test releases it.
    let released = false;
    release = () => {
      released = true;
    };
    const status = (s: string) => ({
      export_id: 'exp_1',
      status: s,
      progress: s === 'completed' ? 100 : 50,
      asset_id: REPLY.asset_id,
      video_url: REPLY.video_url,
      duration_sec: REPLY.duration_sec,
      video_id: 'vid_1',
    });
    a.answer((method) => {
      if (method === 'startExport') return { export_id: 'exp_1', status: 'rendering', progress: 0 };
      if (method === 'getExport') return status(released ? 'completed' : 'rendering');
      if (method === 'getProject')
        return { assets: [{ id: REPLY.asset_id, metadata: { video_clip_count: 2, audio_overlay_count: 0 } }] };
      return { projects: [] };
    });
  });
  afterAll(async () => {
    release();
    await replicas?.close();
  });

  it('declares taskSupport optional on the long tools only, and the tasks capability', async () => {
    const client = await a.connect();
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    const optional = tools.filter((t) => t.execution?.taskSupport === 'optional').map((t) => t.name);
    expect(optional.sort()).toEqual(['generate_media', 'video_editor_export', 'video_editor_instruct']);
  });

  it('runs a task-augmented call to completion, readable from another replica, private to its user', async () => {
    const client = await a.connect();
    const started = client.experimental.tasks.callToolStream(
      { name: 'video_editor_export', arguments: { project_id: PRJ } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    const first = await started.next();
    expect(first.value).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;

    // While it runs: the other replica sees it working; another user does not see it at all.
    const other = await b.connect();
    expect(await other.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    // Its progress is the task's status message.
    await until(
      async () =>
        (await other.experimental.tasks.getTask(taskId)).statusMessage === 'video_editor_export: rendering, 50%',
    );
    const stranger = await b.connect('oauth-all');
    await expect(stranger.experimental.tasks.getTask(taskId)).rejects.toThrow(/not found/i);
    expect((await stranger.experimental.tasks.listTasks()).tasks).toEqual([]);

    release();
    let last: unknown;
    for await (const m of started) last = m;
    expect(last).toMatchObject({ type: 'result', result: { structuredContent: REPLY } });
    expect(await other.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });
    const stored = await other.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(stored.structuredContent).toEqual(REPLY);
    expect(stored.content).toContainEqual(expect.objectContaining({ type: 'resource_link', uri: REPLY.video_url }));
    expect((await other.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);
  });

  it('refuses a task for a tool that does not run as one, and keeps a call without a task as before', async () => {
    const client = await a.connect();
    const messages = await callAsTask(client, 'video_editor_list_projects', {});
    expect(messages.at(-1)).toMatchObject({ type: 'error' });
    expect((await client.callTool({ name: 'video_editor_list_projects', arguments: {} })).structuredContent).toEqual({
      projects: [],
    });
  });

  it('fails a task whose replica stopped renewing its lease, when it is read', async () => {
    const store = postgresTaskStore(db, 'gateway', 7);
    const task = await store.createTask({ ttl: 60_000 }, 1, { method: 'tools/call', params: { name: 'x' } });
    await db(`gateway.${MCP_TASKS_TABLE}`)
      .where({ task_id: task.taskId })
      .update({ lease_until: db.raw(`now() - interval '1 second'`) });
    expect(await store.getTask(task.taskId)).toMatchObject({ status: 'failed', statusMessage: expect.any(String) });
    expect(await store.getTaskResult(task.taskId)).toMatchObject({ isError: true });
  });

  it('cancels a working task and keeps no later result for it', async () => {
    const store = postgresTaskStore(db, 'gateway', 7);
    const task = await store.createTask({}, 2, { method: 'tools/call', params: { name: 'x' } });
    const client = await a.connect();
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    await store.storeTaskResult(task.taskId, 'completed', { content: [] });
    expect(await store.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
  });
});
