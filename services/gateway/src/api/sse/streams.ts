import { EventHub } from '../../core/events/event-hub';
import { TurnEvents } from '../../core/events/turn-events';
import { StreamLimits, type StreamSlots } from '../../core/events/stream-limits';
import { DEFAULT_SSE_OPTIONS, type SseOptions, type SseResponse } from './sse-response';

/** Whose stream it is: the key that opened it and the key's user. */
export interface StreamOwner {
  apiKeyId: number;
  userId: number;
}

/** This replica's event streams: the live hub, the stream limits, and every open stream (closed at shutdown or revocation). */
export class Streams {
  readonly hub = new EventHub();
  /** The streamed instruct turns' events (started with the live feed). */
  readonly turns = new TurnEvents();
  readonly limits: StreamSlots;
  readonly options: SseOptions;
  private readonly open = new Map<SseResponse, StreamOwner | undefined>();

  /** `limits`: the per-key and per-user stream limits (stream-slots-from-config.ts); per process by default. */
  constructor(opts: { limits?: StreamSlots; perKey?: number; perUser?: number; sse?: Partial<SseOptions> } = {}) {
    this.limits = opts.limits ?? new StreamLimits(opts.perKey, opts.perUser);
    this.options = { ...DEFAULT_SSE_OPTIONS, ...opts.sse };
  }

  track(stream: SseResponse, owner?: StreamOwner): void {
    this.open.set(stream, owner);
    stream.onClose(() => this.open.delete(stream));
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Ends the streams opened with a revoked key: what it could read until now it may not read on.
   * The client's reconnect is then refused (401). Returns how many were ended.
   */
  closeKey(apiKeyId: number): number {
    let n = 0;
    for (const [s, owner] of [...this.open]) {
      if (owner?.apiKeyId !== apiKeyId) continue;
      s.end();
      n++;
    }
    return n;
  }

  /** Ends every stream (shutdown): clients reconnect, to another replica, with Last-Event-ID. */
  closeAll(): void {
    for (const s of [...this.open.keys()]) s.end();
  }
}
