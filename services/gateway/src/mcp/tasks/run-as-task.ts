import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import type { CallToolResult, Request, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@mf/logger';
import type { ProgressReport } from '../tool-progress';
import { TASK_LEASE_MS, type DurableTaskStore } from './postgres-task-store';

/**
 * A tool call as an MCP task: the task is recorded, the call runs after the answer (detached from
 * the HTTP request: a stateless request ends with its answer), its progress becomes the task's
 * status message, and its result (an error result: status failed) is stored for tasks/result.
 * While it runs, this replica renews the task's lease; a cancelled task's result is not kept.
 */
export async function runAsTask(
  c: {
    store: DurableTaskStore;
    params: { ttl?: number; pollInterval?: number };
    request: Request;
    requestId: RequestId;
    logger: Logger;
  },
  work: (report: (r: ProgressReport) => Promise<void>) => Promise<CallToolResult>,
): Promise<CreateTaskResult> {
  const task = await c.store.createTask(c.params, c.requestId, c.request);
  const id = task.taskId;
  const warn = (err: unknown, what: string) => c.logger.warn({ err, taskId: id }, what);
  const lease = setInterval(
    () => void c.store.renew(id).catch((err) => warn(err, 'MCP task lease not renewed')),
    TASK_LEASE_MS / 3,
  );
  lease.unref();
  // Status messages in order, one write at a time.
  let writes = Promise.resolve();
  const report = (r: ProgressReport) => {
    writes = writes
      .then(() => c.store.updateTaskStatus(id, 'working', r.message))
      .catch((err) => warn(err, 'MCP task status not written'));
    return writes;
  };
  const finish = async () => {
    try {
      const result = await work(report);
      await writes;
      await c.store.storeTaskResult(id, result.isError ? 'failed' : 'completed', result);
    } catch (err) {
      c.logger.error({ err, taskId: id }, 'MCP task failed');
      await c.store
        .storeTaskResult(id, 'failed', {
          isError: true,
          content: [{ type: 'text', text: '{"status":500,"error":"Internal error"}' }],
        })
        .catch((e) => warn(e, 'MCP task result not stored'));
    } finally {
      clearInterval(lease);
    }
  };
  void finish();
  return { task };
}
