import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { httpResponseOf, isAppError } from '@mf/errors';
import type { Logger } from '@mf/logger';
import { inputJsonSchema, outputJsonSchema } from './schemas';
import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import { mediaContent } from './media-links';
import type { DurableTaskStore } from './tasks/postgres-task-store';
import { cancelTask } from './tasks/cancel-task';
import { runAsTask } from './tasks/run-as-task';
import { cancelJobOfTask, stopWorkOf } from './tasks/stop-work';
import { withToolProgress, type ProgressReport } from './tool-progress';
import { TOOLS, type ToolContext, type ToolSpec } from './tools';

/** How often a long tool call reports progress to a client that asked for it (its timers reset on each). */
export const PROGRESS_INTERVAL_MS = 10_000;

const INSTRUCTIONS = [
  'Generative media: images, videos, and a multi-track video editor with an AI editing agent. generate_media and video_editor_instruct spend the credits of the key owner; the other tools are free.',
  'Generation is asynchronous: generate_media returns a job_id at once; call job_status every 2-5 seconds until status is completed (result URLs), failed or cancelled.',
  'Editor: video_editor_create_project, then either loop video_editor_instruct (answer the agent until the timeline is right) or edit directly (import_asset, add_clip, move_clip, ...); check with video_editor_get_state; finish with video_editor_export for an mp4 URL.',
  'A tool error carries the HTTP status and the error body of the REST API as JSON, e.g. {"status":402,"error":"Insufficient credits","credits_required":1135,"credits_remaining":200}.',
].join('\n');

/** The JSON text of a tool error: the REST status and body, so a client can act on the figures. */
export function errorText(err: unknown, requestId: string): { text: string; internal: boolean } {
  if (!isAppError(err))
    return { text: JSON.stringify({ status: 500, error: 'Internal error', request_id: requestId }), internal: true };
  const { status } = httpResponseOf(err);
  const retryAfter = err.details.retryAfterSec;
  const body: Record<string, unknown> = { status, ...err.body };
  if (retryAfter !== undefined && body.retry_after === undefined) body.retry_after = retryAfter;
  // As over REST: a server-side failure is quoted by its request id, the detail stays in the log.
  if (status >= 500) body.request_id = requestId;
  return { text: JSON.stringify(body), internal: status >= 500 };
}

function success(value: object): CallToolResult {
  // Spread into a plain record: structuredContent is typed as an index-signature object.
  const structured: Record<string, unknown> = { ...value };
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }, ...mediaContent(value)],
    structuredContent: structured,
  };
}

/** The project a long editor tool works on, to follow its generations' progress. */
function projectIdOf(args: Record<string, unknown> | undefined): string | undefined {
  return typeof args?.project_id === 'string' ? args.project_id : undefined;
}

export interface McpServerOptions {
  logger: Logger;
  /** Default PROGRESS_INTERVAL_MS. */
  progressIntervalMs?: number;
  /** The caller's MCP tasks (durable): long tools run as tasks when asked. Without it, no tasks. */
  tasks?: DurableTaskStore;
}

/** What the server offers when it keeps tasks: tools called as tasks, listed and cancelled. */
const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/** What tools/list says of each tool: schemas derived from the contracts, computed once. */
const DESCRIBED: Tool[] = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: inputJsonSchema(tool.input) as Tool['inputSchema'],
  outputSchema: outputJsonSchema(tool.output) as Tool['outputSchema'],
  annotations: tool.annotations,
  // Long tools may run as tasks (the client chooses); without a task request, as before.
  ...(tool.long && { execution: { taskSupport: 'optional' as const } }),
}));
const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/**
 * A server for one HTTP request (stateless: any replica can serve any request). The caller's
 * context is bound here, so every tool runs as the authenticated key. The SDK's low-level server:
 * the tool schemas are ours (derived from joi), and arguments go to the use cases unchanged.
 */
export function buildMcpServer(
  ctx: ToolContext,
  { logger, progressIntervalMs = PROGRESS_INTERVAL_MS, tasks }: McpServerOptions,
): Server {
  const server = new Server(
    { name: 'mediaforge', version: '1.0.0' },
    {
      capabilities: { tools: {}, ...(tasks && { tasks: TASKS_CAPABILITY }) },
      instructions: INSTRUCTIONS,
      taskStore: tasks,
    },
  );
  const described = tasks ? DESCRIBED : DESCRIBED.map(({ execution: _, ...tool }) => tool);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: described }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult | CreateTaskResult> => {
      const tool: ToolSpec | undefined = BY_NAME.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
      const asTask = request.params.task;
      const args = { ...(asTask && tool.taskDefaults), ...request.params.arguments };
      /** The call, reporting its progress through `report` when given (a token or a task). */
      const call = async (report?: (r: ProgressReport) => Promise<void>, c = ctx): Promise<CallToolResult> => {
        try {
          const value = report
            ? await withToolProgress(
                {
                  toolName: tool.name,
                  intervalMs: progressIntervalMs,
                  report,
                  events: c.events && { hub: c.events, userId: c.auth.userId, projectId: projectIdOf(args) },
                },
                (step) => (tool.followed ? tool.followed(args, c, step) : tool.run(args, c)),
              )
            : await tool.run(args, c);
          return success(value);
        } catch (err) {
          // A cancelled task's work stopped following: its result is not kept.
          if (c.task?.signal.aborted) return { isError: true, content: [{ type: 'text', text: 'Task cancelled' }] };
          const { text, internal } = errorText(err, ctx.correlationId);
          if (internal) logger.error({ err, tool: tool.name, requestId: ctx.correlationId }, 'MCP tool failed');
          return { isError: true, content: [{ type: 'text', text }] };
        }
      };
      if (asTask) {
        if (!tasks || !tool.long)
          throw new McpError(ErrorCode.InvalidParams, `Tool ${tool.name} does not run as a task`);
        const stop = (work: { job_id: string }) => cancelJobOfTask(ctx, logger, work);
        return runAsTask(
          { store: tasks, params: asTask, request, requestId: extra.requestId, logger, stop },
          (report, run) => call(report, { ...ctx, task: run }),
        );
      }
      // Only when the client asked for progress (a token): that is what resets its request timer.
      const token = tool.long ? request.params._meta?.progressToken : undefined;
      return call(
        token === undefined
          ? undefined
          : (r) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...r } }),
      );
    },
  );
  if (tasks)
    server.setRequestHandler(CancelTaskRequestSchema, (request) =>
      cancelTask(tasks, request.params.taskId, (task) => stopWorkOf(ctx, logger, task)),
    );
  return server;
}
