import { TERMINAL_EVENT_TYPES, type Job, type JobEventType, type LogEventType } from '@mf/contracts';
import type { EventHub } from './event-hub';
import type { StreamEvent } from './live-event';

/** Live events held while the log is read; a reader so far behind is dropped rather than buffered without end. */
export const MAX_PENDING_EVENTS = 1000;

export interface StreamSink {
  send(event: StreamEvent): void;
  /** Ends the stream (after a job's terminal event). */
  end(): void;
  /** Whether the client went away (or was dropped). */
  readonly closed: boolean;
}

export interface StreamSource {
  hub: EventHub;
  /** The user's log (one job's, given jobId) after an event id, oldest first. */
  readLog: (q: { after?: string; jobId?: string }) => AsyncIterable<StreamEvent>;
}

export interface StreamRequest {
  userId: number;
  /** Only this job's events; the stream ends after its terminal event. */
  job?: Job;
  /** Last-Event-ID: resume after this event. */
  after?: string;
}

/** The event type that names a job's state (the first event of a job's stream). */
export function eventTypeOf(job: Job): JobEventType {
  if (job.status === 'processing') return job.progress === null ? 'job.processing' : 'job.progress';
  return `job.${job.status}`;
}

const isTerminal = (type: LogEventType) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);

/**
 * Runs one stream: listens to live events first (held while the log is read), then sends what the
 * client has not seen (the log after Last-Event-ID; for a job's stream without one, the job's
 * current state under its latest event id), then the held and the following live events. Every
 * event goes out once, in id order: an id not above the last sent is a duplicate and is skipped.
 * Returns the function that stops it (the client went away).
 */
export async function runStream(source: StreamSource, req: StreamRequest, sink: StreamSink): Promise<() => void> {
  const jobId = req.job?.job_id;
  let last = req.after ?? '';
  let pending: StreamEvent[] | null = [];
  let ended = false;

  const finish = () => {
    if (ended) return;
    ended = true;
    stop();
    sink.end();
  };
  const deliver = (e: StreamEvent) => {
    if (ended || sink.closed || e.id <= last) return;
    last = e.id;
    sink.send(e);
    if (jobId && isTerminal(e.type)) finish();
  };
  const stop = source.hub.subscribe(req.userId, (e) => {
    if (jobId && e.jobId !== jobId) return;
    if (pending === null) return deliver(e);
    pending.push(e);
    if (pending.length > MAX_PENDING_EVENTS) finish();
  });

  try {
    if (req.job && req.after === undefined) {
      // The job's state now, under the id of its latest event (so a resume from it misses nothing).
      let latest: StreamEvent | undefined;
      for await (const e of source.readLog({ jobId })) latest = e;
      const first =
        latest && isTerminal(latest.type)
          ? latest
          : { id: latest?.id ?? '', type: eventTypeOf(req.job), jobId: req.job.job_id, data: req.job };
      if (first.id === '') {
        sink.send(first); // a job older than the event log: its state, without an id
        if (isTerminal(first.type)) finish();
      } else deliver(first);
    } else if (req.after !== undefined) {
      for await (const e of source.readLog({ after: req.after, jobId })) {
        if (ended || sink.closed) break;
        deliver(e);
      }
    }
  } catch (err) {
    stop();
    throw err;
  }
  const held = pending;
  pending = null;
  for (const e of held) deliver(e);
  // A finished job whose events were all sent (a resume from its terminal event): nothing more will come.
  if (req.job && req.job.status !== 'processing' && !ended && (req.after !== undefined || last !== '')) finish();
  return stop;
}
