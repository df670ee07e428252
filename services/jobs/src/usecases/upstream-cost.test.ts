import type { ImageParams, VideoParams } from '@mf/contracts';
import { parseProvidersDocument } from '../routing/providers-document';
import { upstreamCost } from './upstream-cost';

const video = { type: 'video' as const, params: { duration_seconds: 8 } as VideoParams };
const image = { type: 'image' as const, params: { num_images: 2 } as ImageParams };

describe('upstream cost of an attempt', () => {
  it("takes the upstream's own figure first, whatever the route's price", () => {
    expect(upstreamCost('openrouter', { per_second: 1 }, video, { usage: { costUsd: 0.4 }, outputs: 1 })).toEqual({
      usd: 0.4,
      source: 'reported',
    });
  });

  it('prices the upstream usage with the route: compute seconds (Replicate), billed units (fal)', () => {
    const price = { per_compute_second: 0.0014, per_unit: 0.025, per_image: 9 };
    expect(upstreamCost('replicate', price, image, { usage: { computeSeconds: 3.5 }, outputs: 2 })).toEqual({
      usd: 0.0049,
      source: 'metered',
    });
    expect(upstreamCost('fal', price, video, { usage: { billedUnits: 4 }, outputs: 1 })).toEqual({
      usd: 0.1,
      source: 'metered',
    });
  });

  it("else the route's price for what was made: per image, per second of video", () => {
    expect(upstreamCost('replicate', { per_image: 0.003 }, image, { outputs: 2 })).toEqual({
      usd: 0.006,
      source: 'price',
    });
    expect(upstreamCost('fal', { per_second: 0.05 }, video, { usage: { billedUnits: 4 }, outputs: 1 })).toEqual({
      usd: 0.4,
      source: 'price',
    });
  });

  it('knows none for the local provider, a route without a price, or a failure without usage', () => {
    expect(upstreamCost('local', { per_image: 1 }, image, { usage: { costUsd: 1 }, outputs: 2 })).toBeNull();
    expect(upstreamCost('replicate', undefined, image, { outputs: 2 })).toBeNull();
    expect(upstreamCost('replicate', { per_second: 1 }, image, { outputs: 2 })).toBeNull();
    expect(upstreamCost('replicate', { per_image: 1 }, image, { outputs: 0 })).toBeNull();
  });
});

describe('route prices in the providers document', () => {
  const doc = (cost: unknown, provider = 'rep') => ({
    text: JSON.stringify({
      providers: {
        rep: { type: 'replicate', base_url: 'https://api.replicate.com/v1', api_key_env: 'KEY' },
        local: { type: 'local' },
      },
      routes: {
        'imagegen-2': [{ provider, model: 'acme/image', cost }],
        'vidgen-2.0': [{ provider: 'local' }],
        'vidgen-2.0-fast': [{ provider: 'local' }],
      },
    }),
    source: 'PROVIDERS_JSON',
    yaml: false,
  });

  it('keeps a route price with its route', () => {
    const routing = parseProvidersDocument(doc({ per_image: 0.003, per_compute_second: 0.001 }), { KEY: 'k' });
    expect(routing.routes['imagegen-2'][0].price).toEqual({ per_image: 0.003, per_compute_second: 0.001 });
    expect(routing.routes['vidgen-2.0'][0].price).toBeUndefined();
  });

  it('refuses an unknown price, a negative one, and a price on a local route', () => {
    expect(() => parseProvidersDocument(doc({ per_video: 1 }), { KEY: 'k' })).toThrow(
      'routes.imagegen-2.0.cost.per_video: unknown price per_video (prices: per_image, per_second, per_compute_second, per_unit)',
    );
    expect(() => parseProvidersDocument(doc({ per_image: -1 }), { KEY: 'k' })).toThrow(
      /routes\.imagegen-2\.0\.cost\.per_image: .*greater than or equal to 0/,
    );
    expect(() => parseProvidersDocument(doc({ per_image: 1 }, 'local'), { KEY: 'k' })).toThrow(
      'routes.imagegen-2[0]: a local route costs nothing upstream (no cost)',
    );
  });
});
