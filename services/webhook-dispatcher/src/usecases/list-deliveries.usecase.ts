import type { DeliveryView, ListDeliveriesReply, ListDeliveriesRequest } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { listDeliveries as listRows, type DeliveryRow } from '../repositories/deliveries.repository';

export const DEFAULT_DELIVERIES_LIMIT = 50;

/** The key's delivery attempts, newest first (the key's webhook usage records), optionally filtered; `has_more` as Stripe's lists. */
export async function listDeliveries(db: Knex, req: ListDeliveriesRequest): Promise<ListDeliveriesReply> {
  const limit = req.limit ?? DEFAULT_DELIVERIES_LIMIT;
  // One row past the page says whether there is a next one.
  const rows = await listRows(db, req.api_key_id, req.user_id, {
    limit: limit + 1,
    status: req.status,
    startingAfter: req.starting_after,
    createdGte: req.created_gte === undefined ? undefined : new Date(req.created_gte),
    createdLte: req.created_lte === undefined ? undefined : new Date(req.created_lte),
  });
  return { deliveries: rows.slice(0, limit).map(deliveryView), has_more: rows.length > limit };
}

export function deliveryView(r: DeliveryRow): DeliveryView {
  return {
    id: Number(r.id),
    event_id: r.event_id,
    event: r.event,
    job_id: r.job_id,
    attempt: r.attempt,
    url: r.url,
    status_code: r.status_code,
    error: r.error,
    duration_ms: r.duration_ms,
    created_at: r.created_at.toISOString(),
    succeeded: r.succeeded,
    test: r.test,
  };
}
