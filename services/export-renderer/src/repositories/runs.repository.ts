import { randomBytes } from 'node:crypto';
import type { ExportErrorCode } from '@mf/contracts';
import type { Knex } from '@mf/db';

/** The rolling window of the per-user export rate. */
export const RATE_WINDOW_SEC = 60;

export interface NewRun {
  user_id: number;
  project_id: string;
  video_id: string;
}

export type StartOutcome = { started: true; runId: string } | { started: false; retryAfterSec: number };

/**
 * Starts a run unless the user already has `limit` runs in the last minute. The count and the
 * insert share one transaction under a per-user advisory lock, so two exports racing for the last
 * slot cannot both get it. When refused: the seconds until enough runs have left the window.
 */
export async function startRun(db: Knex, run: NewRun, limit: number): Promise<StartOutcome> {
  return db.transaction(async (trx) => {
    await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('export:' || ?::text))`, [run.user_id]);
    const recent = await trx('export_runs')
      .select(
        trx.raw('EXTRACT(EPOCH FROM (created_at + make_interval(secs => ?) - now()))::float8 AS leaves_in', [
          RATE_WINDOW_SEC,
        ]),
      )
      .where('user_id', run.user_id)
      .andWhere('created_at', '>', trx.raw('now() - make_interval(secs => ?)', [RATE_WINDOW_SEC]))
      .orderBy('created_at', 'asc');
    if (recent.length >= limit) {
      // Below the limit again once the (count - limit + 1)-th oldest run has left the window.
      const leavesIn = Number((recent[recent.length - limit] as { leaves_in: number }).leaves_in);
      return { started: false, retryAfterSec: Math.min(RATE_WINDOW_SEC, Math.max(1, Math.ceil(leavesIn))) };
    }
    const runId = `exr_${randomBytes(12).toString('hex')}`;
    await trx('export_runs').insert({ id: runId, ...run, status: 'running' });
    return { started: true, runId };
  });
}

export interface RunResult {
  duration_sec: number;
  wall_ms: number;
  cache_hits: number;
  cache_misses: number;
  /** Answered with a stored result of the same timeline (nothing rendered). */
  reused: boolean;
  clips_copied: number;
}

export async function finishRun(db: Knex, runId: string, result: RunResult): Promise<void> {
  await db('export_runs')
    .where({ id: runId })
    .update({ status: 'done', finished_at: db.fn.now(), ...result });
}

export async function failRun(db: Knex, runId: string, errorCode: ExportErrorCode, wallMs: number): Promise<void> {
  await db('export_runs')
    .where({ id: runId })
    .update({ status: 'failed', error_code: errorCode, finished_at: db.fn.now(), wall_ms: wallMs });
}
