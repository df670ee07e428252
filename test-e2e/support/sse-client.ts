/** A minimal server-sent events reader over fetch, for tests: events as they arrive, comments counted. */

export interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The error body of a refused open (4xx), parsed. */
  // Untyped JSON: each test asserts the shape it expects.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The next event; undefined once the stream ended. */
  next: () => Promise<SseEvent | undefined>;
  /** `:` comment lines seen so far (heartbeats). */
  comments: () => number;
  close: () => void;
}

export async function openSse(
  url: string,
  opts: { key: string; lastEventId?: string; timeoutMs?: number },
): Promise<SseStream> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs ?? 120_000);
  const headers: Record<string, string> = { authorization: `Bearer ${opts.key}`, accept: 'text/event-stream' };
  if (opts.lastEventId) headers['last-event-id'] = opts.lastEventId;
  const close = () => {
    clearTimeout(timer);
    abort.abort();
  };
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: abort.signal });
  } catch (err) {
    close(); // no server to answer: leave no timer behind
    throw err;
  }
  if (!res.ok || !res.body) {
    const text = await res.text();
    close();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? JSON.parse(text) : null,
      next: async () => undefined,
      comments: () => 0,
      close,
    };
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let comments = 0;
  let done = false;
  const next = async (): Promise<SseEvent | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) {
            comments++;
            continue;
          }
          const i = line.indexOf(':');
          fields[line.slice(0, i)] = line.slice(i + 1).replace(/^ /, '');
        }
        if (fields.data === undefined) continue;
        return { event: fields.event ?? 'message', id: fields.id, data: fields.data };
      }
      if (done) return undefined;
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) {
        done = true;
        clearTimeout(timer);
        continue;
      }
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  return { status: res.status, headers: res.headers, body: null, next, comments: () => comments, close };
}

/** Reads events until `stop` says so (or the stream ends); returns them all. */
export async function readUntil(stream: SseStream, stop: (e: SseEvent) => boolean): Promise<SseEvent[]> {
  const seen: SseEvent[] = [];
  for (;;) {
    const e = await stream.next();
    if (!e) return seen;
    seen.push(e);
    if (stop(e)) return seen;
  }
}
