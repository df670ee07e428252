import type { Bus } from '@mf/bus';
import { ROUTING_KEYS, turnStreamEvent, type AgentEvent, type TurnStreamEvent } from '@mf/contracts';

/**
 * The events of the instruct turns this replica streams: a broker queue of its own (exclusive,
 * deleted with the connection) bound to editor.turn.event; each event goes to the stream that
 * asked for its stream id, if it is here.
 */
export class TurnEvents {
  private readonly listeners = new Map<string, (event: AgentEvent) => void>();

  start(bus: Bus): Promise<void> {
    return bus.subscribe({
      bindings: [ROUTING_KEYS.turnEvent],
      handle: (_key, payload) => {
        const id = (payload as { stream_id?: unknown } | null)?.stream_id;
        const listener = typeof id === 'string' ? this.listeners.get(id) : undefined;
        if (!listener) return;
        const checked = turnStreamEvent.validate(payload);
        if (!checked.error) listener((checked.value as TurnStreamEvent).event);
      },
    });
  }

  /** Passes the turn's events to `listener` until the returned function is called. */
  listen(streamId: string, listener: (event: AgentEvent) => void): () => void {
    this.listeners.set(streamId, listener);
    return () => {
      this.listeners.delete(streamId);
    };
  }
}
