import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type Joi from 'joi';
import type { Bus } from '@mf/bus';
import type { FalEndpoints } from '@mf/catalog';
import type { EventHub } from '../../core/events/event-hub';
import type { TurnEvents } from '../../core/events/turn-events';
import type { TaskRun } from '../tasks/run-as-task';
import type { ProgressStep } from '../tool-progress';
import type { AuthContext } from '../../http/auth.middleware';

/** What a tool call runs with: the caller of this HTTP request and the gateway's settings. */
export interface ToolContext {
  bus: Bus;
  auth: AuthContext;
  /** The HTTP request's id: the RPCs of the call carry it. */
  correlationId: string;
  falEndpoints: FalEndpoints;
  submitTimeoutMs: number;
  instructTimeoutMs: number;
  exportTimeoutMs: number;
  importTimeoutMs: number;
  /** This replica's live job events: long tools report their generation's real progress from them. */
  events?: EventHub;
  /** This replica's streamed instruct turns: a followed instruct reports its agent's steps from them. */
  turns?: TurnEvents;
  /** How often a followed export reads its state when no event came (events are best effort). */
  followPollMs?: number;
  /** The call runs as an MCP task: its cancellation, and where it records the job it started. */
  task?: TaskRun;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The arguments (mcp/schemas.ts toolArgs): advertised; the use case behind the tool checks them. */
  input: Joi.ObjectSchema;
  /** What the tool answers: a schema of @mf/contracts. */
  output: Joi.Schema;
  annotations: ToolAnnotations;
  /** Takes minutes: progress notifications keep the client's request timer alive. */
  long?: boolean;
  /** Maps the arguments onto the REST operation's use case and returns its reply. */
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<object>;
  /**
   * The same call, reporting its stages through `step` (a client asked for progress, or runs it as
   * a task): the same reply as `run`.
   */
  followed?(args: Record<string, unknown>, ctx: ToolContext, step: ProgressStep): Promise<object>;
  /** Arguments a call run as a task takes unless given (generate_media waits for its job). */
  taskDefaults?: Record<string, unknown>;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const EDIT: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
export const SET: ToolAnnotations = { ...EDIT, idempotentHint: true };

export const list = (values: readonly (string | number)[]) => values.join(', ');
export const scopeLine = (scope: string) => `Scope: ${scope}.`;
export const opts = (ctx: ToolContext, timeoutMs?: number) => ({ correlationId: ctx.correlationId, timeoutMs });
