import type { Request } from 'express';

/** Whether the client asked for the answer as an event stream (`Accept: text/event-stream`). */
export function acceptsEventStream(req: Request): boolean {
  return (req.get('accept') ?? '').toLowerCase().includes('text/event-stream');
}
