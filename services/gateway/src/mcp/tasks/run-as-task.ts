import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import type { CallToolResult, Request, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@mf/logger';
import type { ProgressReport } from '../tool-progress';
import { TASK_LEASE_MS, type DurableTaskStore, type TaskWork } from './postgres-task-store';

/** What the work of a task runs with: its cancellation, and where it records what it started. */
export interface TaskRun {
  /** Aborted when the task is cancelled: the work stops following what it started. */
  signal: AbortSignal;
  /** Records what the work started (a job), for tasks/cancel on any replica to stop it. */
  record(work: TaskWork): Promise<void>;
}

/** The tasks this process runs, to stop following one at once when it is cancelled here. */
const running = new Map<string, AbortController>();

/** A task cancelled through this replica: its work, when it runs here, stops following at once. */
export function stopFollowing(taskId: string): void {
  running.get(taskId)?.abort();
}

/**
 * A tool call as an MCP task: the task is recorded, the call runs after the answer (detached from
 * the HTTP request: a stateless request ends with its answer), its progress becomes the task's
 * status message, and its result (an error result: status failed) is stored for tasks/result.
 * While it runs, this replica renews the task's lease; a cancelled task's result is not kept, and
 * its work is aborted (at once when cancelled here, else at the next renewal). Work recorded after
 * the task was cancelled is stopped by `stop` (the cancel found none to stop).
 */
export async function runAsTask(
  c: {
    store: DurableTaskStore;
    params: { ttl?: number; pollInterval?: number };
    request: Request;
    requestId: RequestId;
    logger: Logger;
    stop: (work: TaskWork) => Promise<unknown>;
  },
  work: (report: (r: ProgressReport) => Promise<void>, run: TaskRun) => Promise<CallToolResult>,
): Promise<CreateTaskResult> {
  const task = await c.store.createTask(c.params, c.requestId, c.request);
  const id = task.taskId;
  const warn = (err: unknown, what: string) => c.logger.warn({ err, taskId: id }, what);
  const controller = new AbortController();
  running.set(id, controller);
  const lease = setInterval(
    () =>
      void c.store.renew(id).then(
        (live) => live || controller.abort(),
        (err: unknown) => warn(err, 'MCP task lease not renewed'),
      ),
    TASK_LEASE_MS / 3,
  );
  lease.unref();
  // Not recorded (a database failure): the task still runs; only its cancel cannot reach the job.
  const record = async (w: TaskWork) => {
    const live = await c.store
      .recordWork(id, w)
      .catch((err: unknown) => (warn(err, 'MCP task work not recorded'), true));
    if (!live) await c.stop(w);
  };
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
      const result = await work(report, { signal: controller.signal, record });
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
      running.delete(id);
    }
  };
  void finish();
  return { task };
}
