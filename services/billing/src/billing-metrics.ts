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

export interface CreditMetrics {
  charged: client.Counter<'model'>;
  refunded: client.Counter;
}

/** Credits moved by charges (per catalog model or editor charge kind) and refunds (docs/usage.md). */
export function createCreditMetrics(registry?: client.Registry): CreditMetrics {
  const registers = registry ? [registry] : [];
  return {
    charged: new client.Counter({
      name: 'billing_credits_charged_total',
      help: 'Credits charged, by model (catalog model, or editor charge kind)',
      labelNames: ['model'],
      registers,
    }),
    refunded: new client.Counter({
      name: 'billing_credits_refunded_total',
      help: 'Credits refunded',
      registers,
    }),
  };
}

/** Counts a committed batch's ledger rows. */
export function countCredits(
  metrics: CreditMetrics,
  entries: readonly { kind: string; amount: number; model: string | null }[],
): void {
  for (const e of entries) {
    if (e.kind === 'charge') metrics.charged.inc({ model: e.model ?? 'unknown' }, e.amount);
    else if (e.kind === 'refund' && e.amount > 0) metrics.refunded.inc(e.amount);
  }
}
