import client from 'prom-client';
import type { Knex } from '@mf/db';
import { countPending } from '../repositories/pending-attempts.repository';

export interface LaneMetrics {
  /** Runs of pending attempts by kind (event, resend) and how they ended. */
  settled: client.Counter<'kind' | 'result'>;
}

/**
 * The lanes' series: what ended, what is in flight in this replica, and the backlog of every lane
 * (read from the database when scraped: the number to scale replicas on, since events wait there,
 * not on the broker).
 */
export function createLaneMetrics(
  registry: client.Registry | undefined,
  db: Knex,
  inFlight: () => number,
): LaneMetrics {
  const registers = registry ? [registry] : [];
  new client.Gauge({
    name: 'webhook_attempts_in_flight',
    help: 'Webhook attempts this replica is making now (at most WEBHOOK_MAX_IN_FLIGHT)',
    registers,
    collect() {
      this.set(inFlight());
    },
  });
  new client.Gauge({
    name: 'webhook_attempts_pending',
    help: 'Webhook attempts waiting in the endpoints lanes or being made, all replicas',
    registers,
    async collect() {
      this.set(await countPending(db));
    },
  });
  return {
    settled: new client.Counter({
      name: 'webhook_attempts_settled_total',
      help: 'Pending webhook attempts run, by kind (event, resend) and result (ack, scheduled, dead-lettered, sent, skipped, postponed, error)',
      labelNames: ['kind', 'result'],
      registers,
    }),
  };
}
