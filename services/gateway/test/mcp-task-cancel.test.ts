import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Knex } from '@mf/db';
import { postgresTaskStore } from '../src/mcp/tasks/postgres-task-store';
import type { Endpoint } from './support/mcp-endpoint';
import { startTaskReplicas, type TaskReplicas } from './support/task-replicas';

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
  let replicas: TaskReplicas;
  let db: Knex;
  let a: Endpoint;
  let b: Endpoint;
  let jobs = 0;
  let endTurn: () => void = () => undefined;

  beforeAll(async () => {
    replicas = await startTaskReplicas();
    ({ db, a, b } = replicas);
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
    await replicas?.close();
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
