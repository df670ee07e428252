import { randomBytes } from 'node:crypto';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { Knex } from '@mf/db';

/** Created by migration 0009_mcp_tasks in the gateway's schema (its `work` column by 0010_mcp_task_work). */
export const MCP_TASKS_TABLE = 'mcp_tasks';

/** How long a task and its result are kept when the client asks for no ttl, and at most. */
export const TASK_TTL_MS = 24 * 3600_000;
/** How often a client should poll tasks/get (the SDK's tasks/result waits this long between reads). */
export const TASK_POLL_MS = 2_000;
/** A running task's lease: renewed by its replica every third of it; past it the task is lost. */
export const TASK_LEASE_MS = 60_000;
const LOST_MESSAGE = 'The server running this task stopped before it finished. Call the tool again.';
const PAGE = 50;
const TERMINAL = ['completed', 'failed', 'cancelled'];

interface TaskRow {
  task_id: string;
  status: Task['status'];
  status_message: string | null;
  ttl_ms: string;
  poll_interval_ms: number;
  result: Result | null;
  tool: string | null;
  work: TaskWork | null;
  created_at: Date;
  updated_at: Date;
}

function taskOf(r: TaskRow): Task {
  return {
    taskId: r.task_id,
    status: r.status,
    ttl: Number(r.ttl_ms),
    createdAt: r.created_at.toISOString(),
    lastUpdatedAt: r.updated_at.toISOString(),
    pollInterval: r.poll_interval_ms,
    ...(r.status_message !== null && { statusMessage: r.status_message }),
  };
}

function failureText(status: string, result: Result): string | null {
  if (status !== 'failed') return null;
  const first = (result.content as { type?: string; text?: string }[] | undefined)?.[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : 'The tool call failed';
}

/** What a task started that outlives its call: a generation's job (cancelled with the task). */
export interface TaskWork {
  job_id: string;
}

/** A task just cancelled: its tool and what it had started, for stopping that too. */
export interface CancelledTask {
  tool: string | null;
  work: TaskWork | null;
}

/** The store's own operations beside the SDK's TaskStore: the running replica's lease, cancelling. */
export interface DurableTaskStore extends TaskStore {
  /** Keeps the task alive (its replica still runs it); false once the task has ended (cancelled). */
  renew(taskId: string): Promise<boolean>;
  /** Records what the task started; false when the task has already ended (the work is its to stop). */
  recordWork(taskId: string, work: TaskWork): Promise<boolean>;
  /** Ends a task that has not ended `cancelled`; null when it had ended (or is not the caller's). */
  cancel(taskId: string, statusMessage: string): Promise<CancelledTask | null>;
  /** The status message of a cancelled task, once what it started has been stopped. */
  noteCancelled(taskId: string, statusMessage: string): Promise<void>;
}

/**
 * MCP tasks in Postgres, for one user (the caller of the request): every replica reads the same
 * tasks, so a client may poll any of them, and a task outlives the request (and the connection)
 * that started it. Another user's task is "not found". A task still working past its lease (its
 * replica stopped) is failed when read. Expired tasks are deleted when a task is created.
 */
export function postgresTaskStore(db: Knex, schema: string, userId: number): DurableTaskStore {
  const table = `${schema}.${MCP_TASKS_TABLE}`;
  const mine = () => db(table).where({ user_id: userId }).andWhere('expires_at', '>', db.raw('now()'));
  const lease = () => db.raw(`now() + (? * interval '1 millisecond')`, [TASK_LEASE_MS]);

  const read = async (taskId: string): Promise<TaskRow | undefined> => {
    await db(table)
      .where({ task_id: taskId, user_id: userId })
      .whereIn('status', ['working', 'input_required'])
      .andWhere('lease_until', '<', db.raw('now()'))
      .update({ status: 'failed', status_message: LOST_MESSAGE, updated_at: db.raw('now()') });
    return mine().andWhere({ task_id: taskId }).first<TaskRow | undefined>();
  };

  const settle = async (taskId: string, fields: Record<string, unknown>) => {
    await db(table)
      .where({ task_id: taskId, user_id: userId })
      .whereNotIn('status', TERMINAL)
      .update({ ...fields, updated_at: db.raw('now()') });
  };

  return {
    async createTask(params, _requestId: RequestId, request: Request): Promise<Task> {
      await db(table).where('expires_at', '<', db.raw('now()')).delete();
      const ttl = Math.min(params.ttl ?? TASK_TTL_MS, TASK_TTL_MS);
      const tool = (request.params as { name?: unknown } | undefined)?.name;
      const [row] = await db(table)
        .insert({
          task_id: randomBytes(16).toString('hex'),
          user_id: userId,
          status: 'working',
          ttl_ms: ttl,
          poll_interval_ms: Math.max(params.pollInterval ?? TASK_POLL_MS, TASK_POLL_MS),
          tool: typeof tool === 'string' ? tool : null,
          lease_until: lease(),
          expires_at: db.raw(`now() + (? * interval '1 millisecond')`, [ttl]),
        })
        .returning<TaskRow[]>('*');
      return taskOf(row);
    },
    async getTask(taskId) {
      const row = await read(taskId);
      return row ? taskOf(row) : null;
    },
    async storeTaskResult(taskId, status, result) {
      // A failed task says why in tasks/get too (the tool's error text: the REST status and body).
      await settle(taskId, { status, result: JSON.stringify(result), status_message: failureText(status, result) });
    },
    async getTaskResult(taskId) {
      const row = await read(taskId);
      if (!row) throw new Error(`Task not found: ${taskId}`);
      if (row.result) return row.result;
      if (row.status === 'failed' || row.status === 'cancelled')
        return { isError: true, content: [{ type: 'text', text: row.status_message ?? `Task ${row.status}` }] };
      throw new Error(`Task ${taskId} has no result yet`);
    },
    async updateTaskStatus(taskId, status, statusMessage) {
      await settle(taskId, { status, status_message: statusMessage ?? null });
    },
    async listTasks(cursor) {
      let q = mine().orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'task_id', order: 'desc' },
      ]);
      if (cursor) {
        const after = await mine().andWhere({ task_id: cursor }).first<TaskRow | undefined>();
        if (!after) throw new Error('Invalid cursor');
        // Rows after the cursor's in the listing's order (created_at, then task_id, both descending).
        q = q.andWhereRaw('(created_at, task_id) < (?, ?)', [after.created_at, after.task_id]);
      }
      const rows = await q.limit(PAGE + 1).select<TaskRow[]>('*');
      const page = rows.slice(0, PAGE);
      return {
        tasks: page.map(taskOf),
        ...(rows.length > PAGE && { nextCursor: page[page.length - 1].task_id }),
      };
    },
    async renew(taskId) {
      const n = await db(table)
        .where({ task_id: taskId, user_id: userId })
        .whereNotIn('status', TERMINAL)
        .update({ lease_until: lease() });
      return n > 0;
    },
    async recordWork(taskId, work) {
      const n = await db(table)
        .where({ task_id: taskId, user_id: userId })
        .whereNotIn('status', TERMINAL)
        .update({ work: JSON.stringify(work) });
      return n > 0;
    },
    async cancel(taskId, statusMessage) {
      // One statement: the task ends once, and whatever work was recorded before it is returned.
      const [row] = await mine()
        .andWhere({ task_id: taskId })
        .whereNotIn('status', TERMINAL)
        .update({ status: 'cancelled', status_message: statusMessage, updated_at: db.raw('now()') })
        .returning<Pick<TaskRow, 'tool' | 'work'>[]>(['tool', 'work']);
      return row ? { tool: row.tool, work: row.work } : null;
    },
    async noteCancelled(taskId, statusMessage) {
      await db(table)
        .where({ task_id: taskId, user_id: userId, status: 'cancelled' })
        .update({ status_message: statusMessage, updated_at: db.raw('now()') });
    },
  };
}
