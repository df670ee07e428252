import { answer, requestHeaders, send } from './api.js';

/** One event of a text/event-stream answer: its `event:` name and its `data:` parsed as JSON. */
export interface StreamedEvent {
  name: string;
  data: Record<string, unknown>;
}

/**
 * POSTs a JSON body asking for an event stream and hands each event to `onEvent` as it arrives
 * (EventSource cannot POST, nor send the CSRF token). An answer that is not a stream (the checks'
 * 400, 403, 404, 401) rejects with its ApiError, as any other call does.
 */
export async function postForEvents(
  path: string,
  body: unknown,
  onEvent: (event: StreamedEvent) => void,
): Promise<void> {
  const headers = requestHeaders('POST', 'text/event-stream');
  headers['Content-Type'] = 'application/json';
  const res = await send('POST', path, headers, JSON.stringify(body));
  if (!res.ok || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream') || !res.body) {
    await answer<unknown>(res, path);
    return;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const event = parseBlock(block);
      if (event) onEvent(event);
    }
  }
}

/** One block of lines; comments (heartbeats) and blocks without data are skipped. */
function parseBlock(block: string): StreamedEvent | null {
  let name = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return null;
  try {
    const parsed = JSON.parse(data.join('\n')) as unknown;
    return parsed && typeof parsed === 'object' ? { name, data: parsed as Record<string, unknown> } : null;
  } catch {
    return null;
  }
}
