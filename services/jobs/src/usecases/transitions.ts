import { jobEvents, ROUTING_KEYS, type CancelledBy } from '@mf/contracts';
import { rowsOf, type Knex } from '@mf/db';
import { currentAttempt, toEventPayload, type JobRow } from '../domain/job';
import { endAttemptIfChanged } from '../repositories/attempts.repository';
import { transition, transitionStatement } from '../repositories/jobs.repository';
import { addToOutbox, changeWithEvent } from '../repositories/outbox.repository';
import type { JobsContext } from './context';
import { settleRefund } from './refunds';

// Terminal transitions. Each is one transaction: the status change (only from processing, so
// racing transitions end in exactly one), the owed refund marker, and the event in the outbox.
// The refund itself follows the commit and is retried until billing confirms it.

/** A completed job, and the start of its attempt when the completion also ended that attempt. */
export interface Completion {
  row: JobRow;
  /** null: the attempt was not ended here (already ended, or the slow path): the caller ends it. */
  attemptStartedAt: Date | null;
}

/**
 * `attempt`: complete only while the job is still on that attempt (the result is that attempt's).
 * Given the attempt and the row as it was claimed on it, the event is known before the change: a
 * completed job's event shows only what the change sets (status, results, completion time) and
 * what is fixed while the attempt lasts (the request, its owner, the attempt's model). Change,
 * event and the attempt's end (succeeded) then go in one statement, not a transaction of four
 * round trips and a second commit for the attempt (which also ran beside the relay's turn).
 */
export async function completeJob(
  ctx: JobsContext,
  job: JobRow,
  resultKeys: string[],
  attempt?: number,
): Promise<Completion | undefined> {
  const changes = {
    status: 'completed',
    result_keys: resultKeys,
    completed_at: new Date(),
    next_poll_at: null,
  } as const;
  let done: Completion | undefined;
  if (attempt !== undefined && job.attempt === attempt) {
    const payload = toEventPayload({ ...job, ...changes }, ctx.settings.publicBaseUrl);
    const statement = changeWithEvent(
      ctx.db,
      transitionStatement(ctx.db, job.id, 'processing', changes, attempt),
      ROUTING_KEYS.jobCompleted,
      payload,
    );
    const n = currentAttempt(job);
    if (n > 0)
      statement
        .with('ended', endAttemptIfChanged(ctx.db, job.id, n, 'succeeded'))
        .select(ctx.db.raw('(SELECT started_at FROM ended) AS ended_attempt_started_at'));
    const [found] = await rowsOf<JobRow & { ended_attempt_started_at?: Date | null }>(statement);
    if (found) {
      const { ended_attempt_started_at: startedAt, ...row } = found;
      done = { row, attemptStartedAt: startedAt ?? null };
    }
  } else {
    const row = await ctx.db.transaction(async (trx) => {
      const changed = await transition(trx, job.id, 'processing', changes, attempt);
      if (changed)
        await addToOutbox(trx, ROUTING_KEYS.jobCompleted, toEventPayload(changed, ctx.settings.publicBaseUrl));
      return changed;
    });
    done = row && { row, attemptStartedAt: null };
  }
  if (done) ctx.kickRelay();
  return done;
}

export async function failJob(ctx: JobsContext, job: JobRow, error: string): Promise<JobRow | undefined> {
  return endWithRefund(ctx, job, 'failed', error);
}

export async function cancelProcessingJob(
  ctx: JobsContext,
  job: JobRow,
  by: CancelledBy = 'user',
): Promise<JobRow | undefined> {
  return endWithRefund(ctx, job, 'cancelled', null, by);
}

async function endWithRefund(
  ctx: JobsContext,
  job: JobRow,
  status: 'failed' | 'cancelled',
  error: string | null,
  cancelledBy: CancelledBy | null = null,
): Promise<JobRow | undefined> {
  const ended = await ctx.db.transaction(async (trx) => {
    const row = await transition(trx, job.id, 'processing', {
      status,
      error,
      cancelled_by: cancelledBy,
      completed_at: new Date(),
      next_poll_at: null,
      refund_state: 'pending',
    });
    if (row)
      await addToOutbox(
        trx,
        status === 'failed' ? jobEvents.failed.routingKey : jobEvents.cancelled.routingKey,
        toEventPayload(row, ctx.settings.publicBaseUrl),
      );
    return row;
  });
  if (!ended) return undefined;
  ctx.kickRelay();
  await settleRefund(ctx, ended);
  return ended;
}

/**
 * submitting -> processing (an upstream took the job, or the submit's budget ran out and the poller
 * goes on): the change and the job.processing event in one transaction. `attempt` guards as in
 * `transition`. Other moves of a processing job (the next route) are not events.
 *
 * `current`: the submitting job's row exactly as it stands (the submit's own row, on `attempt`:
 * nothing else writes a submitting job but to reject it, which the compare-and-set sees). Its event
 * is then known before the change, and the change and event go in one statement.
 *
 * `first`: a statement committed on its own before the change (the attempt's upstream id, kept even
 * if the change then blocks on the job's row and the process dies there).
 */
export async function startProcessing(
  ctx: JobsContext,
  jobId: string,
  from: 'submitting' | 'processing',
  changes: Partial<Omit<JobRow, 'params' | 'routes'>>,
  attempt: number,
  current?: JobRow,
  first?: Knex.QueryBuilder,
): Promise<JobRow | undefined> {
  const moved = { ...changes, status: 'processing' } as const;
  if (current && from === 'submitting' && current.id === jobId && current.attempt === attempt) {
    const payload = toEventPayload({ ...current, ...moved }, ctx.settings.publicBaseUrl);
    const change = changeWithEvent(
      ctx.db,
      transitionStatement(ctx.db, jobId, from, moved, attempt),
      ROUTING_KEYS.jobProcessing,
      payload,
    );
    // `first` commits on its own before the change, which may block on the job's row.
    if (first) await first;
    const [row] = await rowsOf<JobRow>(change);
    if (row) ctx.kickRelay();
    return row;
  }
  if (first) await first;
  const row = await ctx.db.transaction(async (trx) => {
    const moved = await transition(trx, jobId, from, { ...changes, status: 'processing' }, attempt);
    if (moved && from === 'submitting')
      await addToOutbox(trx, ROUTING_KEYS.jobProcessing, toEventPayload(moved, ctx.settings.publicBaseUrl));
    return moved;
  });
  if (row && from === 'submitting') ctx.kickRelay();
  return row;
}
