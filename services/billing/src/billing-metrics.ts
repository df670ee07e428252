import client from 'prom-client';

/** Billing's own series; their names are what the dashboard queries. */
export function createBatchSizeHistogram(registry?: client.Registry): client.Histogram {
  return new client.Histogram({
    name: 'billing_batch_size',
    help: 'Charges and refunds committed per transaction',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: registry ? [registry] : [],
  });
}
