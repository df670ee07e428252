import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createDb, migrate, type Knex } from '@mf/db';
import { createTestDatabase, type TestDatabase } from '@mf/testing';
import { migrations } from '../migrations';
import { postgresTaskStore } from '../src/mcp/tasks/postgres-task-store';
import { startEndpoint, type Endpoint } from './support/mcp-endpoint';

const PRJ = 'prj_abc123';

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts a tool call as a task; answers its id (the call runs on). */
async function startTask(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  const first = await stream.next();
  return (first.value as { task: { taskId: string } }).task.taskId;
}

describe('tasks/cancel stops the work of the task', () => {
  let database: TestDatabase;
  let db: Knex;
  let a: Endpoint;
  let b: Endpoint;
  let jobs = 0;
  let endTurn: () => void = () => undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb({ url: database.url, schema: 'gateway', poolMax: 4 });
    await migrate(db, 'gateway', migrations);
    const tasks = (userId: number) => postgresTaskStore(db, 'gateway', userId);
    a = await startEndpoint({ tasks, followPollMs: 10 });
    b = await startEndpoint({ tasks });
    const answer = (method: string, request: Record<string, unknown>): unknown => {
      if (method === 'submit')
        return { job_id: `job_c${++jobs}`, status: 'processing', credits_consumed: 908, credits_remaining: 92 };
      if (method === 'get') return { job_id: request.job_id, status: 'processing', progress: 10, type: 'video' };
      if (method === 'cancel') return { job_id: request.job_id, status: 'cancelled', refunded_credits: 908 };
      // An agent turn that runs until the test ends it.
      if (method === 'instruct')
        return new Promise((resolve) => {
          endTurn = () => resolve({ reply: 'done', events: [] });
        });
      return {};
    };
    a.answer(answer);
    b.answer(answer);
  });
  afterAll(async () => {
    endTurn();
    await a?.close();
    await b?.close();
    await db?.destroy();
    await database?.drop();
  });

  const cancels = (e: Endpoint) => e.calls.filter((c) => c.method === 'cancel').map((c) => c.request.job_id);

  it("cancels a waiting generation's job (refunded like DELETE /jobs/{id}) and says so in the task", async () => {
    const client = await a.connect();
    const taskId = await startTask(client, 'generate_media', { type: 'video', prompt: 'a fox' });
    await until(async () => a.calls.some((c) => c.method === 'get'));
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({
      taskId,
      status: 'cancelled',
      statusMessage: 'Cancelled: job job_c1 cancelled, 908 credits refunded.',
    });
    expect(cancels(a)).toEqual(['job_c1']);
    // The call stops following the job: no later result replaces the cancel.
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true });
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'cancelled' });
  });

  it('cancels the job from another replica than the one running the task', async () => {
    const client = await a.connect();
    const taskId = await startTask(client, 'generate_media', { type: 'video', prompt: 'a hare' });
    await until(async () => a.calls.filter((c) => c.method === 'submit').length === 2);
    const other = await b.connect();
    // The job id reaches the task's record right after the submit.
    await until(async () => {
      const row = await db('gateway.mcp_tasks').where({ task_id: taskId }).first<{ work: unknown }>();
      return row.work !== null;
    });
    expect(await other.experimental.tasks.cancelTask(taskId)).toMatchObject({
      status: 'cancelled',
      statusMessage: 'Cancelled: job job_c2 cancelled, 908 credits refunded.',
    });
    expect(cancels(b)).toEqual(['job_c2']);
  });

  it('stops following an agent turn, saying the turn itself runs to its end, and keeps no later result', async () => {
    const client = await a.connect();
    const taskId = await startTask(client, 'video_editor_instruct', { project_id: PRJ, instruction: 'cut it' });
    await until(async () => a.calls.some((c) => c.method === 'instruct'));
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.statusMessage).toMatch(/no longer follows the editor's turn\. The turn itself runs to its end/);
    // Its result is the cancel, at once: the turn has not ended yet.
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: cancelled.statusMessage }] });
    endTurn();
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'cancelled' });
  });

  it('refuses to cancel a task that has ended, and an unknown task', async () => {
    const store = postgresTaskStore(db, 'gateway', 7);
    const task = await store.createTask({}, 1, { method: 'tools/call', params: { name: 'generate_media' } });
    await store.storeTaskResult(task.taskId, 'completed', { content: [] });
    const client = await b.connect();
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/terminal status: completed/);
    await expect(client.experimental.tasks.cancelTask('nope')).rejects.toThrow(/not found/i);
  });
});
