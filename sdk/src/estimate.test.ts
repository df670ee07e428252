import { estimateOfImage, estimateOfVideo, MediaforgeClient } from './index';

describe('estimating a generation with the SDK', () => {
  it('names the model the submit would use: fast: true is vidgen-2.0-fast', () => {
    expect(estimateOfVideo({ prompt: 'a fox', duration_seconds: 10 })).toEqual({
      prompt: 'a fox',
      duration_seconds: 10,
      model: 'vidgen-2.0',
    });
    expect(estimateOfVideo({ prompt: 'a fox', fast: true }).model).toBe('vidgen-2.0-fast');
    expect(estimateOfImage({ prompt: 'a bike', num_images: 2 })).toEqual({
      prompt: 'a bike',
      num_images: 2,
      model: 'imagegen-2',
    });
  });

  it('posts the body to /api/v1/estimate and returns the price', async () => {
    const calls: { url: string; method?: string; body?: string }[] = [];
    const client = new MediaforgeClient({
      baseUrl: 'http://api.test',
      apiKey: 'mf_live_test',
      fetch: async (url, init) => {
        calls.push({ url: String(url), method: init?.method, body: init?.body as string });
        return new Response(
          JSON.stringify({ model: 'imagegen-2', credits: 100, credits_remaining: 40, affordable: false }),
          { status: 200, headers: { 'content-type': 'application/json' } },
        );
      },
    });
    const price = await client.estimate(estimateOfImage({ prompt: 'a bike', num_images: 2 }));
    expect(price).toEqual({ model: 'imagegen-2', credits: 100, credits_remaining: 40, affordable: false });
    expect(calls).toEqual([
      {
        url: 'http://api.test/api/v1/estimate',
        method: 'POST',
        body: JSON.stringify({ prompt: 'a bike', num_images: 2, model: 'imagegen-2' }),
      },
    ]);
  });
});
