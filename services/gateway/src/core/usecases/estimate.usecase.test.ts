import type { Bus } from '@mf/bus';
import { estimateCost, priceOf } from './estimate.usecase';

/** A bus answering billing's account and key-limits calls with fixed figures. */
function fakeBus(balance: number, key?: { spend_limit: number | null; spent_this_period: number }): Bus {
  const rpc = (service: { queue: string }, method: string) => {
    if (method === 'account') return Promise.resolve({ credits_remaining: balance });
    if (method === 'get')
      return Promise.resolve({
        keys: key ? [{ api_key_id: 1, max_concurrent_jobs: null, active_jobs: 0, ...key }] : [],
      });
    return Promise.reject(new Error(`unexpected ${service.queue} ${method}`));
  };
  return { rpc } as unknown as Bus;
}

describe('pricing a submit without making it', () => {
  it('prices each model as the submit charges it', () => {
    expect(priceOf('vidgen-2.0', { prompt: 'a' })).toBe(1135);
    expect(priceOf('vidgen-2.0', { prompt: 'a', duration_seconds: 15, resolution: '480p' })).toBe(1515);
    expect(priceOf('vidgen-2.0-fast', { prompt: 'a', duration_seconds: 8 })).toBe(1448);
    expect(priceOf('imagegen-2', { prompt: 'a', num_images: 4 })).toBe(200);
  });

  it("refuses a bad field with the submit's message, and a fast flag contradicting the model", () => {
    expect(() => priceOf('vidgen-2.0', { prompt: 'a', duration_seconds: 7 })).toThrow(
      'duration_seconds must be one of 4, 5, 6, 8, 10, 15',
    );
    expect(() => priceOf('vidgen-2.0-fast', { prompt: 'a', image_url: 'https://example.com/a.png' })).toThrow(
      'fast mode supports text-to-video only (no image_url)',
    );
    expect(() => priceOf('vidgen-2.0-fast', { prompt: 'a', fast: false })).toThrow(
      'fast must be true for vidgen-2.0-fast',
    );
    expect(() => priceOf('vidgen-2.0', { prompt: 'a', fast: true })).toThrow(/estimate that model instead/);
  });

  it("says affordable only when the balance covers it and the key's spend limit leaves room", async () => {
    const body = { model: 'imagegen-2', prompt: 'a', num_images: 2 };
    const auth = { userId: 1, apiKeyId: 1 };
    expect(await estimateCost(fakeBus(100), auth, body)).toEqual({
      model: 'imagegen-2',
      credits: 100,
      credits_remaining: 100,
      affordable: true,
    });
    expect((await estimateCost(fakeBus(99), auth, body)).affordable).toBe(false);
    expect((await estimateCost(fakeBus(500, { spend_limit: 150, spent_this_period: 60 }), auth, body)).affordable).toBe(
      false,
    );
    expect((await estimateCost(fakeBus(500, { spend_limit: 150, spent_this_period: 50 }), auth, body)).affordable).toBe(
      true,
    );
    expect((await estimateCost(fakeBus(500), { userId: 1, apiKeyId: null }, body)).affordable).toBe(true);
  });

  it('names a missing or unknown model', async () => {
    await expect(estimateCost(fakeBus(0), { userId: 1, apiKeyId: 1 }, { prompt: 'a' })).rejects.toMatchObject({
      kind: 'invalid',
      body: { error: 'model is required' },
    });
    await expect(
      estimateCost(fakeBus(0), { userId: 1, apiKeyId: 1 }, { model: 'sora', prompt: 'a' }),
    ).rejects.toMatchObject({ body: { error: 'model must be one of vidgen-2.0, vidgen-2.0-fast, imagegen-2' } });
  });
});
