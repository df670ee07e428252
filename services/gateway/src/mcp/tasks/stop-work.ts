import { httpResponseOf, isAppError } from '@mf/errors';
import type { Logger } from '@mf/logger';
import { cancelJob } from '../../core/usecases/jobs.usecase';
import { opts, type ToolContext } from '../tools/tool';
import type { CancelledTask, TaskWork } from './postgres-task-store';

/** A cancelled task's status message until what it started has been stopped. */
export const CANCELLING = 'Client cancelled task execution.';

/** What a cancelled task says of the work of a tool that cannot be stopped midway (docs/mcp.md "Tasks"). */
const RUNS_ON: Record<string, string> = {
  video_editor_instruct:
    "Cancelled: the task no longer follows the editor's turn. The turn itself runs to its end (a language-model turn cannot be cut safely); its edits stay in the project.",
  video_editor_export:
    'Cancelled: the task no longer follows the export. The render itself runs to its end; its export stays listed with the project.',
};

/**
 * Stops a generation a task started: its job is cancelled through the same use case as
 * DELETE /api/v1/jobs/{id}, so the charge is refunded as for that cancel. Answers the task's status message.
 */
export async function cancelJobOfTask(ctx: ToolContext, logger: Logger, work: TaskWork): Promise<string> {
  const id = work.job_id;
  try {
    const reply = await cancelJob(ctx.bus, ctx.auth, id, opts(ctx));
    return `Cancelled: job ${id} cancelled, ${reply.refunded_credits} credits refunded.`;
  } catch (err) {
    if (isAppError(err) && httpResponseOf(err).status === 409)
      return `Cancelled: job ${id} had already ended (${String(err.body.error)}).`;
    logger.error({ err, jobId: id }, 'job of a cancelled MCP task not cancelled');
    return `Cancelled, but job ${id} could not be cancelled: cancel it with DELETE /api/v1/jobs/${id}.`;
  }
}

/** The status message of a task just cancelled, once what it started has been stopped (when it can be). */
export function stopWorkOf(ctx: ToolContext, logger: Logger, task: CancelledTask): Promise<string> {
  if (task.work) return cancelJobOfTask(ctx, logger, task.work);
  const tool = task.tool ?? '';
  return Promise.resolve(
    RUNS_ON[tool] ??
      (tool === 'generate_media'
        ? 'Cancelled before its job was submitted; a job submitted meanwhile is cancelled and refunded.'
        : CANCELLING),
  );
}
