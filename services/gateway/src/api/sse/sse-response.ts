import type { Response } from 'express';
import type { StreamEvent } from '../../core/events/live-event';
import type { StreamSink } from '../../core/events/stream-session';

export interface SseOptions {
  /** A `:` comment this often keeps proxies from closing an idle stream (default 15 s). */
  heartbeatMs: number;
  /** A client that lets more than this many bytes pile up unread is dropped (default 256 KiB). */
  maxBufferedBytes: number;
}

export const DEFAULT_SSE_OPTIONS: SseOptions = { heartbeatMs: 15_000, maxBufferedBytes: 256 * 1024 };

/** One event in the text/event-stream format: its name, id (when it has one) and the Job as JSON. */
export function formatEvent(e: StreamEvent): string {
  return `event: ${e.type}\n${e.id ? `id: ${e.id}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`;
}

/**
 * An express response as a server-sent event stream: the headers at once, events and heartbeats
 * as they come. A reader too slow to take what is sent (more than maxBufferedBytes waiting in the
 * socket) is dropped: the connection is destroyed and the client resumes with Last-Event-ID.
 */
export class SseResponse implements StreamSink {
  private heartbeat: NodeJS.Timeout;
  private done = false;
  private readonly closeListeners: Array<() => void> = [];

  constructor(
    private readonly res: Response,
    private readonly opts: SseOptions = DEFAULT_SSE_OPTIONS,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no'); // nginx: do not buffer the stream
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    this.heartbeat = setInterval(() => this.write(':\n\n'), opts.heartbeatMs);
    this.heartbeat.unref();
    res.on('close', () => this.closed_());
  }

  get closed(): boolean {
    return this.done;
  }

  /** Runs once the stream is over, whoever ended it. */
  onClose(listener: () => void): void {
    if (this.done) listener();
    else this.closeListeners.push(listener);
  }

  send(event: StreamEvent): void {
    this.write(formatEvent(event));
  }

  /** An event without an id (a streamed turn's: not resumable), its data as JSON. */
  sendNamed(type: string, data: unknown): void {
    this.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (this.done) return;
    this.res.end();
    this.closed_();
  }

  /** Drops the client (slow reader, shutdown). */
  drop(): void {
    if (this.done) return;
    this.res.destroy();
    this.closed_();
  }

  private write(chunk: string): void {
    if (this.done) return;
    this.res.write(chunk);
    if (this.res.writableLength > this.opts.maxBufferedBytes) this.drop();
  }

  private closed_(): void {
    if (this.done) return;
    this.done = true;
    clearInterval(this.heartbeat);
    for (const l of this.closeListeners.splice(0)) l();
  }
}
