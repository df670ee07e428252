import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { api, userWithKey } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { balance, balanceBecomes } from '../support/jobs';

/** Tools called as MCP tasks against the real fleet: cancelling one stops its work. */

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('MCP tasks', () => {
  let fleet: PooledFleet;
  let client: Client;

  beforeAll(async () => {
    fleet = await pooledFleet();
  }, 180_000);
  afterAll(async () => {
    await client?.close();
  });

  it('cancels a waiting generate_media task: the job is cancelled over REST and its credits refunded', async () => {
    const user = await userWithKey(fleet, 'all', 5000);
    client = new Client({ name: 'mcp-tasks-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${fleet.baseUrl}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${user.key}` } },
      }),
    );
    const stream = client.experimental.tasks.callToolStream(
      {
        name: 'generate_media',
        arguments: { type: 'video', prompt: 'to be cancelled', duration_seconds: 15, wait: true },
      },
      CallToolResultSchema,
      { task: { ttl: 600_000 } },
    );
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;

    // The job id shows in the task's status message once submitted (and charged).
    const working = await eventually(
      () => client.experimental.tasks.getTask(taskId),
      (t) => /job_\w+/.test(t.statusMessage ?? ''),
    );
    const jobId = /job_\w+/.exec(working.statusMessage ?? '')?.[0] ?? '';
    const charged = 5000 - (await balance(fleet, user.key));
    expect(charged).toBeGreaterThan(0);

    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({
      taskId,
      status: 'cancelled',
      statusMessage: `Cancelled: job ${jobId} cancelled, ${charged} credits refunded.`,
    });

    const job = await api(fleet, 'GET', `/api/v1/jobs/${jobId}`, { key: user.key });
    expect(job.body).toMatchObject({ job_id: jobId, status: 'cancelled', result: null });
    expect(await balanceBecomes(fleet, user.key, 5000)).toBe(5000);
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'cancelled' });
    // The task's stream ends with the cancel, not with a later result.
    let last: unknown;
    for await (const m of stream) last = m;
    expect(last).toMatchObject({ type: 'error' });
  });
});
