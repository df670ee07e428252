import type { JobEventPayload } from './generated/types';

/** The User-Agent of every webhook delivery (and of what `mediaforge listen` forwards). */
export const WEBHOOK_USER_AGENT = 'Mediaforge-Webhooks/1.0';

/**
 * The body of a job event's webhook delivery, keys in the contract's order: the one builder, used
 * by the dispatcher for real deliveries and by the event streams for `listen` (so what `listen`
 * forwards is byte for byte what a delivery carries). `model` is the upstream endpoint path: the
 * contract says so for webhook bodies. Then two additions: `source` (api, editor or dashboard) and
 * `project_id` (editor jobs), so a receiver can tell the editor's generations from its own.
 */
export function webhookBody(payload: JobEventPayload): string {
  return JSON.stringify({
    job_id: payload.job_id,
    status: payload.status,
    model: payload.upstream_model,
    type: payload.type,
    credits_consumed: payload.credits_consumed,
    created_at: payload.created_at,
    completed_at: payload.completed_at,
    result: payload.result,
    error: payload.error,
    source: payload.source ?? 'api',
    project_id: payload.project_id ?? null,
  });
}
