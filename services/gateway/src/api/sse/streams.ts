import { EventHub } from '../../core/events/event-hub';
import { StreamLimits, type StreamSlots } from '../../core/events/stream-limits';
import { DEFAULT_SSE_OPTIONS, type SseOptions, type SseResponse } from './sse-response';

/** This replica's event streams: the live hub, the per-key limit, and every open stream (closed at shutdown). */
export class Streams {
  readonly hub = new EventHub();
  readonly limits: StreamSlots;
  readonly options: SseOptions;
  private readonly open = new Set<SseResponse>();

  /** `limits`: the per-key stream limit (stream-slots-from-config.ts); per process by default. */
  constructor(opts: { limits?: StreamSlots; perKey?: number; sse?: Partial<SseOptions> } = {}) {
    this.limits = opts.limits ?? new StreamLimits(opts.perKey);
    this.options = { ...DEFAULT_SSE_OPTIONS, ...opts.sse };
  }

  track(stream: SseResponse): void {
    this.open.add(stream);
    stream.onClose(() => this.open.delete(stream));
  }

  get size(): number {
    return this.open.size;
  }

  /** Ends every stream (shutdown): clients reconnect, to another replica, with Last-Event-ID. */
  closeAll(): void {
    for (const s of [...this.open]) s.end();
  }
}
