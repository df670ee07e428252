import { ErrorCode, McpError, type CancelTaskResult } from '@modelcontextprotocol/sdk/types.js';
import type { CancelledTask, DurableTaskStore } from './postgres-task-store';
import { stopFollowing } from './run-as-task';
import { CANCELLING } from './stop-work';

/**
 * tasks/cancel that stops the work too (the SDK's own handler only marks the task): the task ends
 * `cancelled` first (so its work's result is no longer kept), then what it started is stopped by
 * `stop` (a generation's job is cancelled and refunded), whose answer becomes the status message.
 */
export async function cancelTask(
  store: DurableTaskStore,
  taskId: string,
  stop: (task: CancelledTask) => Promise<string>,
): Promise<CancelTaskResult> {
  const before = await store.getTask(taskId);
  if (!before) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
  const cancelled = await store.cancel(taskId, CANCELLING);
  if (!cancelled) {
    const now = await store.getTask(taskId);
    throw new McpError(
      ErrorCode.InvalidParams,
      `Cannot cancel task in terminal status: ${now?.status ?? before.status}`,
    );
  }
  stopFollowing(taskId);
  await store.noteCancelled(taskId, await stop(cancelled));
  const after = await store.getTask(taskId);
  if (!after) throw new McpError(ErrorCode.InvalidParams, `Task not found after cancellation: ${taskId}`);
  return { _meta: {}, ...after };
}
