import client from 'prom-client';
import { countCredits, createCreditMetrics } from './billing-metrics';

describe('credit metrics', () => {
  it('counts charges per model and refunds, from the rows a batch committed', async () => {
    const registry = new client.Registry();
    const metrics = createCreditMetrics(registry);
    countCredits(metrics, [
      { kind: 'charge', amount: 404, model: 'vidgen-2.0' },
      { kind: 'charge', amount: 50, model: 'imagegen-2' },
      { kind: 'charge', amount: 50, model: 'imagegen-2' },
      { kind: 'charge', amount: 5, model: null },
      { kind: 'refund', amount: 50, model: null },
      { kind: 'refund', amount: 0, model: null },
    ]);
    const charged = await registry.getSingleMetric('billing_credits_charged_total')!.get();
    expect(Object.fromEntries(charged.values.map((v) => [v.labels.model, v.value]))).toEqual({
      'vidgen-2.0': 404,
      'imagegen-2': 100,
      unknown: 5,
    });
    const refunded = await registry.getSingleMetric('billing_credits_refunded_total')!.get();
    expect(refunded.values[0].value).toBe(50);
  });
});
