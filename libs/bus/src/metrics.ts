import client from 'prom-client';

/** The bus's Prometheus series; their names and labels are what dashboards and alerts query. */
export interface BusMetrics {
  rpcDuration: client.Histogram<'method' | 'outcome'>;
  handled: client.Counter<'queue' | 'type' | 'outcome'>;
  queueReady: client.Gauge<'queue'>;
}

/**
 * Creates the series on `registry` (none: unregistered, so tests can make many buses).
 * `readDepths` gives the ready messages per queue at each scrape (queue-depth.ts).
 */
export function createBusMetrics(
  registry?: client.Registry,
  readDepths: () => Promise<Map<string, number>> = () => Promise.resolve(new Map<string, number>()),
): BusMetrics {
  const registers = registry ? [registry] : [];
  return {
    rpcDuration: new client.Histogram({
      name: 'bus_rpc_call_duration_seconds',
      help: 'Outgoing RPC call duration by method and outcome',
      labelNames: ['method', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5],
      registers,
    }),
    handled: new client.Counter({
      name: 'bus_messages_handled_total',
      help: 'Messages handled by this service, by queue, type and outcome',
      labelNames: ['queue', 'type', 'outcome'],
      registers,
    }),
    queueReady: new client.Gauge({
      name: 'bus_queue_messages_ready',
      help: 'Messages waiting for a consumer in the queues this service consumes and their dead-letter queues (<queue>.dlq), read from the broker at scrape time',
      labelNames: ['queue'],
      registers,
      async collect() {
        const depths = await readDepths();
        this.reset();
        for (const [queue, ready] of depths) this.set({ queue }, ready);
      },
    }),
  };
}
