import { JOB_EVENT_TYPES, jobEventSchema, type Job, type JobEventPayload, type JobEventType } from '@mf/contracts';

/** One event of the per-user log as streams send it: id, type, the job and its owner. */
export interface StreamEvent {
  id: string;
  type: JobEventType;
  jobId: string;
  data: Job;
}

/** A live event from the broker with the user it belongs to. */
export interface LiveEvent extends StreamEvent {
  userId: number;
}

const TYPES: readonly string[] = JOB_EVENT_TYPES;

/**
 * A job event as the broker delivered it, if it is one a stream can send: a known type, a valid
 * payload, with the log's id and the Job (events relayed before they carried both are skipped; a
 * reader that resumes gets them from the log).
 */
export function liveEventOf(routingKey: string, payload: unknown): LiveEvent | null {
  if (!TYPES.includes(routingKey)) return null;
  const checked = jobEventSchema.validate(payload, { convert: false });
  if (checked.error) return null;
  const p = checked.value as JobEventPayload;
  if (!p.event_id || !p.job) return null;
  return { id: p.event_id, type: routingKey as JobEventType, jobId: p.job_id, userId: p.user_id, data: p.job };
}
