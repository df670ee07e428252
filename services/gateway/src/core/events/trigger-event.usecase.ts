import type { Bus } from '@mf/bus';
import { findModel, type FalEndpoints } from '@mf/catalog';
import {
  jobsRpc,
  triggerEventBody,
  validateBody,
  videoRequest,
  type Job,
  type JobEventPayload,
  type TriggerEventBody,
  type TriggerEventReply,
  type Validated,
} from '@mf/contracts';
import type { AuthContext } from '../auth/auth-context';
import { valid } from '../usecases/validated';
import { sampleJobEvent } from '../usecases/webhook-samples';
import type { EventCallOptions } from './event-log.usecase';

export interface TriggerDeps {
  publicBaseUrl: string;
  falEndpoints: FalEndpoints;
}

/** The body of POST /api/v1/events/trigger, by its one definition (@mf/contracts event-log.ts). */
function validateTriggerEventBody(body: unknown): Validated<TriggerEventBody> {
  return validateBody(triggerEventBody, body);
}

/** What the sample job was asked: its model's defaults, a 5 s clip, a fixed seed. */
const SAMPLE_PROMPT = 'A sample job sent by mediaforge trigger';

/** The Job object of a sample event, as streams and the log show a real job's (the model's display name). */
export function sampleJobView(payload: JobEventPayload): Job {
  const asked = videoRequest.validate({ prompt: SAMPLE_PROMPT, duration_seconds: 5, seed: 0 }).value as Record<
    string,
    unknown
  >;
  return {
    job_id: payload.job_id,
    status: payload.status,
    model: findModel(payload.model_id)?.name ?? payload.model_id,
    type: payload.type,
    credits_consumed: payload.credits_consumed,
    created_at: payload.created_at,
    completed_at: payload.completed_at,
    result: payload.result,
    error: payload.error,
    input: { ...asked, image_url: null } as Job['input'],
    source: payload.source ?? 'api',
    project_id: payload.project_id ?? null,
    progress: payload.status === 'completed' ? 100 : null,
  };
}

/**
 * POST /api/v1/events/trigger (`mediaforge trigger`): records a sample of the event in the
 * caller's event log, marked as a test, and answers with it. From there it goes the way every
 * event goes, as `stripe trigger` does: the user's streams (so a running `mediaforge listen`
 * forwards it) and the key's webhook endpoint (signed as its deliveries are, `X-Service-Test:
 * true`, whatever its filter, once) get it, both under its event id and with the same body.
 */
export async function triggerEvent(
  bus: Bus,
  auth: AuthContext,
  body: unknown,
  deps: TriggerDeps,
  opts: EventCallOptions = {},
): Promise<TriggerEventReply> {
  const { type } = valid(validateTriggerEventBody(body));
  const payload: JobEventPayload = {
    ...sampleJobEvent(type, deps.publicBaseUrl, deps.falEndpoints),
    user_id: auth.userId,
    api_key_id: auth.apiKeyId,
  };
  const event = await bus.rpc(
    jobsRpc,
    'recordTestEvent',
    { type, sample: { ...payload, job: sampleJobView(payload) } },
    opts,
  );
  return { event };
}
