import { MediaforgeClient, NotFoundError } from './index';

/** client.webhook: the paths, methods, queries and bodies it sends, over a recording fetch. */
describe('client.webhook', () => {
  const calls: { url: string; method: string; body: string | undefined; headers: Record<string, string> }[] = [];
  let answer: { status: number; body: unknown } = { status: 200, body: {} };
  const client = new MediaforgeClient({
    baseUrl: 'http://api.test',
    apiKey: 'mf_live_x',
    maxRetries: 0,
    fetch: async (url, init) => {
      calls.push({
        url,
        method: String(init?.method),
        body: init?.body as string | undefined,
        headers: init?.headers as Record<string, string>,
      });
      return new Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  beforeEach(() => {
    calls.length = 0;
    answer = { status: 200, body: {} };
  });

  it('sets, reads, deletes the endpoint and rotates its secret', async () => {
    await client.webhook.set({
      url: 'https://hooks.example.com/x',
      events: ['job.failed'],
      signature_scheme: 'standard',
    });
    await client.webhook.get();
    await client.webhook.delete();
    await client.webhook.rotateSecret(0);
    await client.webhook.rotateSecret();
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      [
        'PUT',
        'http://api.test/api/v1/webhook',
        JSON.stringify({ url: 'https://hooks.example.com/x', events: ['job.failed'], signature_scheme: 'standard' }),
      ],
      ['GET', 'http://api.test/api/v1/webhook', undefined],
      ['DELETE', 'http://api.test/api/v1/webhook', undefined],
      ['POST', 'http://api.test/api/v1/webhook/secret/rotate', JSON.stringify({ overlap_hours: 0 })],
      ['POST', 'http://api.test/api/v1/webhook/secret/rotate', JSON.stringify({})],
    ]);
  });

  it('lists deliveries with the given filters as query parameters', async () => {
    answer = { status: 200, body: { deliveries: [] } };
    expect(await client.webhook.listDeliveries({ status: 'failed', limit: 5, starting_after: 42 })).toEqual({
      deliveries: [],
    });
    expect(calls[0]).toMatchObject({
      method: 'GET',
      url: 'http://api.test/api/v1/webhook/deliveries?status=failed&limit=5&starting_after=42',
    });
  });

  it('reads one delivery, and turns a 404 into a NotFoundError', async () => {
    await client.webhook.getDelivery(7);
    expect(calls[0]).toMatchObject({ method: 'GET', url: 'http://api.test/api/v1/webhook/deliveries/7' });
    answer = { status: 404, body: { error: 'Delivery not found' } };
    await expect(client.webhook.getDelivery(8)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('resends, recovers from a Date, and sends a sample event, each a POST with an Idempotency-Key', async () => {
    answer = { status: 202, body: { delivery_id: 9 } };
    expect(await client.webhook.resend(7)).toEqual({ delivery_id: 9 });
    answer = { status: 202, body: { queued: 2 } };
    expect(await client.webhook.recover(new Date('2026-01-02T03:04:05Z'))).toEqual({ queued: 2 });
    answer = { status: 200, body: { delivery: { id: 10 } } };
    await client.webhook.sendTest('job.failed');

    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['POST', 'http://api.test/api/v1/webhook/deliveries/7/resend', undefined],
      ['POST', 'http://api.test/api/v1/webhook/recover', JSON.stringify({ since: '2026-01-02T03:04:05.000Z' })],
      ['POST', 'http://api.test/api/v1/webhook/test', JSON.stringify({ type: 'job.failed' })],
    ]);
    for (const c of calls) expect(c.headers['idempotency-key']).toEqual(expect.any(String));
  });
});
