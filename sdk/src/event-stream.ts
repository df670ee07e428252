import { errorFromResponse } from './errors';
import type { ErrorBody, StreamedEvent } from './types';

/** What a stream needs of the client: where, who, and how to fetch. */
export interface StreamTransport {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  fetchImpl: (input: string, init?: RequestInit) => Promise<Response>;
}

export interface StreamOptions {
  /** Resume after this event id (the last one you saw). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Reconnects after a dropped connection or a 429/5xx, in a row, before giving up (default 5). */
  maxReconnects?: number;
  /** Backoff base between reconnects, ms (default 500, doubling up to 10 s). */
  reconnectBaseMs?: number;
}

const TERMINAL: readonly string[] = ['job.completed', 'job.failed', 'job.cancelled'];

/** One server-sent event block parsed (event, id, data); null for a comment-only block. */
export function parseEventBlock(block: string): { event: string; id?: string; data: string } | null {
  const fields: Record<string, string> = {};
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const name = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
    fields[name] = name === 'data' && fields.data !== undefined ? `${fields.data}\n${value}` : value;
  }
  if (fields.data === undefined) return null;
  return { event: fields.event ?? 'message', ...(fields.id ? { id: fields.id } : {}), data: fields.data };
}

/** The events of one open response body, as they arrive. */
async function* eventsOf(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamedEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const parsed = parseEventBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (parsed)
          // The event's name says what its data is (a Job, or an export): the union is discriminated by `type`.
          yield {
            id: parsed.id ?? null,
            type: parsed.event,
            data: JSON.parse(parsed.data) as unknown,
          } as StreamedEvent;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

const wait = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * Follows a text/event-stream path of the API as an async iterator of events. A dropped connection
 * (or a 429/5xx answer) reconnects with Last-Event-ID, so no event is missed or repeated; a job's
 * stream (`endsAfterTerminal`) finishes after the job's terminal event, or on a 204 (resumed past it). Other error answers reject
 * with the SDK's typed errors (NotFoundError for another user's job).
 */
export async function* followStream(
  t: StreamTransport,
  path: string,
  opts: StreamOptions & { endsAfterTerminal: boolean },
): AsyncGenerator<StreamedEvent> {
  let lastId = opts.lastEventId;
  let failures = 0;
  const maxReconnects = opts.maxReconnects ?? 5;
  for (;;) {
    if (opts.signal?.aborted) return;
    const headers: Record<string, string> = {
      authorization: `Bearer ${t.apiKey}`,
      accept: 'text/event-stream',
      'user-agent': t.userAgent,
      ...(lastId ? { 'last-event-id': lastId } : {}),
    };
    let retryable = true;
    try {
      const res = await t.fetchImpl(`${t.baseUrl}/api/v1${path}`, { headers, signal: opts.signal });
      // Resumed at or past a finished job's last event: nothing more will come.
      if (res.status === 204) return;
      if (!res.ok || !res.body) {
        const text = await res.text();
        retryable = res.status === 429 || res.status >= 500;
        let body: ErrorBody | string | null = text || null;
        try {
          body = text ? (JSON.parse(text) as ErrorBody) : null;
        } catch {
          /* not JSON: keep the text */
        }
        throw errorFromResponse(res.status, body, res.headers);
      }
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        retryable = false;
        throw new Error(`${path} did not answer with an event stream`);
      }
      for await (const event of eventsOf(res.body)) {
        failures = 0;
        if (event.id) lastId = event.id;
        yield event;
        if (opts.endsAfterTerminal && TERMINAL.includes(event.type)) return;
      }
      // The server ended the stream (a restart): resume where we were.
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (!retryable || failures >= maxReconnects) throw err;
    }
    failures++;
    await wait(Math.min(10_000, (opts.reconnectBaseMs ?? 500) * 2 ** (failures - 1)), opts.signal);
  }
}
