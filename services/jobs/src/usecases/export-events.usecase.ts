import { eventIdOf, type AppendExportEventReply, type AppendExportEventRequest } from '@mf/contracts';
import { addToOutbox } from '../repositories/outbox.repository';
import type { JobsContext } from './context';

/**
 * Writes a background export's event into its user's log: the same outbox, order lock and relay as
 * job events, so streams and GET /api/v1/events carry both in one id order.
 */
export async function appendExportEvent(
  ctx: JobsContext,
  req: AppendExportEventRequest,
): Promise<AppendExportEventReply> {
  const id = await ctx.db.transaction((trx) => addToOutbox(trx, req.type, req.payload));
  ctx.kickRelay();
  return { event_id: eventIdOf(id) };
}
