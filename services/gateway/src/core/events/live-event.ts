import {
  EXPORT_EVENT_TYPES,
  exportEventSchema,
  JOB_EVENT_TYPES,
  jobEventSchema,
  type ExportEventPayload,
  type ExportStatus,
  type Job,
  type JobEventPayload,
  type LogEventType,
} from '@mf/contracts';

/**
 * One event of the per-user log as streams send it: id, type, and the job (job events) or the
 * background export (export events) as it was.
 */
export interface StreamEvent {
  id: string;
  type: LogEventType;
  /** Job events only: a job's stream sends these of its job. */
  jobId?: string;
  data: Job | ExportStatus;
}

/** A live event from the broker with the user it belongs to. */
export interface LiveEvent extends StreamEvent {
  userId: number;
}

const JOB_TYPES: readonly string[] = JOB_EVENT_TYPES;
const EXPORT_TYPES: readonly string[] = EXPORT_EVENT_TYPES;

/**
 * An event as the broker delivered it, if it is one a stream can send: a known type, a valid
 * payload, with the log's id and the Job or export (events relayed before they carried both are
 * skipped; a reader that resumes gets them from the log).
 */
export function liveEventOf(routingKey: string, payload: unknown): LiveEvent | null {
  if (EXPORT_TYPES.includes(routingKey)) {
    const checked = exportEventSchema.validate(payload, { convert: false });
    if (checked.error) return null;
    const p = checked.value as ExportEventPayload;
    if (!p.event_id) return null;
    return { id: p.event_id, type: routingKey as LogEventType, userId: p.user_id, data: p.export };
  }
  if (!JOB_TYPES.includes(routingKey)) return null;
  const checked = jobEventSchema.validate(payload, { convert: false });
  if (checked.error) return null;
  const p = checked.value as JobEventPayload;
  if (!p.event_id || !p.job) return null;
  return { id: p.event_id, type: routingKey as LogEventType, jobId: p.job_id, userId: p.user_id, data: p.job };
}
