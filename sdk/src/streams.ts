import { followStream, type StreamOptions, type StreamTransport } from './event-stream';
import { JobFailedError, WaitTimeoutError } from './errors';
import { route } from './generated/operations';
import type { EventsPage, Job, JobEvent, StreamedEvent, TriggerEventResponse, TriggerEventType } from './types';
import { sleep } from './transport';

/** `client.jobs`: a job's events as they happen. */
export interface JobsStreams {
  /**
   * The job's events (`for await (const e of client.jobs.stream(id))`): first its current state,
   * then each change (progress included); ends after completed, failed or cancelled.
   */
  stream(id: string, options?: StreamOptions): AsyncGenerator<JobEvent>;
}

/** `client.events`: the key owner's event log. */
export interface EventsApi {
  /**
   * Every event of every job and background export of the key owner, as it happens (`isJobEvent`
   * tells them apart); never ends by itself (break, or abort the signal).
   */
  stream(options?: StreamOptions): AsyncGenerator<StreamedEvent>;
  /** A page of the event log, oldest first after `after` (next_cursor null at the end). */
  list(params?: { after?: string; limit?: number }, opts?: { signal?: AbortSignal }): Promise<EventsPage>;
  /**
   * Records a sample of the event in the log, marked `test` (`mediaforge trigger`): the streams
   * (a running `listen`) and the key's webhook endpoint then get it as any event.
   */
  trigger(type: TriggerEventType, opts?: { signal?: AbortSignal }): Promise<TriggerEventResponse>;
}

export function streamTransport(
  baseUrl: string,
  apiKey: string,
  userAgent: string,
  fetchImpl: StreamTransport['fetchImpl'],
): StreamTransport {
  return { baseUrl, apiKey, userAgent, fetchImpl };
}

export function jobsStreams(t: StreamTransport): JobsStreams {
  return {
    // A job's stream sends that job's events only.
    stream: (id, options = {}) =>
      followStream(t, route('streamJobEvents', { id }).path, {
        ...options,
        endsAfterTerminal: true,
      }) as AsyncGenerator<JobEvent>,
  };
}

export function eventsApi(
  t: StreamTransport,
  list: (query: Record<string, string | undefined>, signal?: AbortSignal) => Promise<EventsPage>,
  trigger: (type: TriggerEventType, signal?: AbortSignal) => Promise<TriggerEventResponse>,
): EventsApi {
  return {
    trigger: (type, opts = {}) => trigger(type, opts.signal),
    stream: (options = {}) => followStream(t, route('streamEvents').path, { ...options, endsAfterTerminal: false }),
    list: (params = {}, opts = {}) =>
      list({ after: params.after, limit: params.limit === undefined ? undefined : String(params.limit) }, opts.signal),
  };
}

export interface WaitOptions {
  /** Give up after this long with a WaitTimeoutError (default 15 min). */
  timeoutMs?: number;
  /** Called with every job read (every event of its stream, or every poll). */
  onPoll?: (job: Job, elapsedMs: number) => void;
  signal?: AbortSignal;
}

/**
 * Waits for a job by following its event stream; when the stream cannot be had (an older server,
 * a proxy that buffers it, a network that drops it for good) it falls back to `poll`. Resolves the
 * completed Job; rejects with JobFailedError when it fails or is cancelled, WaitTimeoutError after
 * timeoutMs.
 */
export async function waitByStream(
  jobs: JobsStreams,
  id: string,
  options: WaitOptions,
  poll: (timeoutMs: number) => Promise<Job>,
): Promise<Job> {
  const timeoutMs = options.timeoutMs ?? 15 * 60_000;
  const started = Date.now();
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  const onAbort = () => ctl.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let last: Job | null = null;
  try {
    for await (const event of jobs.stream(id, { signal: ctl.signal, maxReconnects: 3 })) {
      last = event.data;
      options.onPoll?.(last, Date.now() - started);
      if (last.status === 'completed') return last;
      if (last.status === 'failed' || last.status === 'cancelled') throw new JobFailedError(last);
    }
  } catch (err) {
    if (err instanceof JobFailedError) throw err;
    // Anything else (an older server without streams, a proxy, a network that drops it for good):
    // polling is the safety net, and answers a real 401 or 404 with its own typed error.
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
  if (options.signal?.aborted) throw options.signal.reason as Error;
  const left = timeoutMs - (Date.now() - started);
  if (left <= 0) throw new WaitTimeoutError(id, timeoutMs, last);
  return poll(left);
}

export interface PollOptions extends WaitOptions {
  /** First poll interval (default 1000 ms); grows x1.5 per poll up to maxIntervalMs. */
  intervalMs?: number;
  /** Longest interval between polls (default 10000 ms). */
  maxIntervalMs?: number;
}

/** Options of client.waitForJob. */
export interface WaitForJobOptions extends PollOptions {
  /** Follow the job's event stream, polling only when it cannot be had (default true); false: poll. */
  stream?: boolean;
}

/** Polls a job until it ends (intervals growing x1.5): the fallback of waitByStream, and `stream: false`. */
export async function pollForJob(
  getJob: (signal?: AbortSignal) => Promise<Job>,
  id: string,
  options: PollOptions,
): Promise<Job> {
  const { intervalMs = 1000, maxIntervalMs = 10_000, timeoutMs = 15 * 60_000, onPoll, signal } = options;
  const started = Date.now();
  let interval = Math.max(1, intervalMs);
  let last: Job | null = null;
  for (;;) {
    last = await getJob(signal);
    onPoll?.(last, Date.now() - started);
    if (last.status === 'completed') return last;
    if (last.status === 'failed' || last.status === 'cancelled') throw new JobFailedError(last);
    const left = timeoutMs - (Date.now() - started);
    if (left <= 0) throw new WaitTimeoutError(id, timeoutMs, last);
    await sleep(Math.min(interval, left), signal);
    interval = Math.min(maxIntervalMs, Math.ceil(interval * 1.5));
  }
}
