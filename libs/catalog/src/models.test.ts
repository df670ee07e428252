import {
  IMAGE_ASPECT_RATIOS,
  PROMPT_MAX,
  VIDEO_ASPECT_RATIOS,
  VIDEO_DURATIONS,
  VIDEO_RESOLUTIONS,
} from '@mf/contracts';
import {
  IMAGE_PRICE,
  MODELS,
  findModel,
  imageCost,
  videoCost,
  type CreditSpec,
  type ImageCreditSpec,
  type ModelSpec,
} from './models';

function model(id: string): ModelSpec {
  const m = findModel(id);
  if (!m) throw new Error(`model ${id} missing from the catalog`);
  return m;
}

const vidgen = model('vidgen-2.0');
const fast = model('vidgen-2.0-fast');
const imagegen = model('imagegen-2');

describe('model catalog (contract section 1)', () => {
  it('lists exactly vidgen-2.0, vidgen-2.0-fast and imagegen-2', () => {
    expect(MODELS.map((m) => m.id)).toEqual(['vidgen-2.0', 'vidgen-2.0-fast', 'imagegen-2']);
    expect(MODELS.map((m) => m.type)).toEqual(['video', 'video', 'image']);
  });

  it('returns undefined for an unknown model id', () => {
    expect(findModel('vidgen-3.0')).toBeUndefined();
  });

  it('routes both video models to the VidGen endpoint and the image model to the ImageGen endpoint', () => {
    expect(vidgen.submit_endpoint).toBe('/api/v1/video/vidgen-2/generate');
    expect(fast.submit_endpoint).toBe('/api/v1/video/vidgen-2/generate');
    expect(imagegen.submit_endpoint).toBe('/api/v1/image/imagegen/generate');
  });

  it('gives vidgen-2.0 text-to-video and image-to-video, and the fast variant text-to-video only', () => {
    expect(vidgen.capabilities).toEqual(expect.arrayContaining(['text-to-video', 'image-to-video']));
    expect(fast.capabilities).toEqual(['text-to-video']);
  });
});

describe('prices', () => {
  it('charges vidgen-2.0 227 credits per second at 720p and 101 at 480p, audio included', () => {
    const credits = vidgen.credits as CreditSpec;
    expect(credits.base_per_second).toBe(227);
    expect(credits.per_second_by_resolution).toEqual({ '480p': 101, '720p': 227 });
    expect(credits.audio_surcharge_per_second).toBe(0);
    expect(credits.example_5s_with_audio).toBe(1135);
    expect(5 * 227).toBe(1135);
    expect(5 * credits.per_second_by_resolution['720p']).toBe(credits.example_5s_with_audio);
  });

  it('charges vidgen-2.0-fast a flat 181 credits per second, audio included', () => {
    const credits = fast.credits as CreditSpec;
    expect(credits.base_per_second).toBe(181);
    expect(credits.per_second_by_resolution).toEqual({ '480p': 181, '720p': 181 });
    expect(credits.audio_surcharge_per_second).toBe(0);
    expect(credits.example_5s_with_audio).toBe(905);
    expect(5 * 181).toBe(905);
  });

  it('charges imagegen-2 50 credits per image', () => {
    expect(IMAGE_PRICE).toBe(50);
    expect(imagegen.credits as ImageCreditSpec).toEqual({ per_image: 50, example_1_image: 50 });
  });

  it('prices integer credits everywhere', () => {
    for (const m of MODELS) {
      for (const value of Object.values(m.credits)) {
        const numbers = typeof value === 'object' ? Object.values(value as Record<string, number>) : [value];
        for (const n of numbers) expect(Number.isInteger(n)).toBe(true);
      }
    }
  });
});

describe('videoCost', () => {
  const cases: [number, number, number][] = [
    // duration, 720p, 480p
    [4, 908, 404],
    [5, 1135, 505],
    [6, 1362, 606],
    [8, 1816, 808],
    [10, 2270, 1010],
    [15, 3405, 1515],
  ];

  it.each(cases)('charges a %i s vidgen-2.0 video %i credits at 720p and %i at 480p', (duration, at720, at480) => {
    expect(videoCost(false, duration, '720p')).toBe(at720);
    expect(videoCost(false, duration, '480p')).toBe(at480);
  });

  it.each(VIDEO_DURATIONS.map((d) => [d, d * 181] as const))(
    'charges a %i s fast video %i credits at either resolution',
    (duration, cost) => {
      expect(videoCost(true, duration, '720p')).toBe(cost);
      expect(videoCost(true, duration, '480p')).toBe(cost);
    },
  );

  it('matches the contract examples: 5 s at 720p = 1135, 5 s fast = 905', () => {
    expect(videoCost(false, 5, '720p')).toBe(1135);
    expect(videoCost(true, 5, '720p')).toBe(905);
  });

  it('covers every accepted duration in the table above', () => {
    expect(cases.map(([d]) => d)).toEqual([...VIDEO_DURATIONS]);
  });
});

describe('imageCost', () => {
  it.each([
    [1, 50],
    [2, 100],
    [3, 150],
    [4, 200],
  ])('charges %i image(s) %i credits', (n, cost) => {
    expect(imageCost(n)).toBe(cost);
  });
});

describe('accepted parameters', () => {
  it('accepts the contract durations 4, 5, 6, 8, 10, 15', () => {
    expect([...VIDEO_DURATIONS]).toEqual([4, 5, 6, 8, 10, 15]);
    expect(vidgen.params.duration_seconds.enum).toEqual([4, 5, 6, 8, 10, 15]);
    expect(fast.params.duration_seconds.enum).toEqual([4, 5, 6, 8, 10, 15]);
  });

  it('accepts the contract video aspect ratios 16:9, 9:16, 1:1, 4:3, 3:4, 21:9', () => {
    expect([...VIDEO_ASPECT_RATIOS]).toEqual(['16:9', '9:16', '1:1', '4:3', '3:4', '21:9']);
    expect(vidgen.params.aspect_ratio.enum).toEqual(['16:9', '9:16', '1:1', '4:3', '3:4', '21:9']);
    expect(fast.params.aspect_ratio.enum).toEqual(['16:9', '9:16', '1:1', '4:3', '3:4', '21:9']);
  });

  it('accepts the contract resolutions 480p and 720p', () => {
    expect([...VIDEO_RESOLUTIONS]).toEqual(['480p', '720p']);
    expect(vidgen.params.resolution.enum).toEqual(['480p', '720p']);
  });

  it('accepts the contract image aspect ratios 1:1, 16:9, 9:16, 4:3, 3:4', () => {
    expect([...IMAGE_ASPECT_RATIOS]).toEqual(['1:1', '16:9', '9:16', '4:3', '3:4']);
    expect(imagegen.params.aspect_ratio.enum).toEqual(['1:1', '16:9', '9:16', '4:3', '3:4']);
  });

  it('uses the contract video defaults: 5 s, 16:9, 720p, audio on, not fast', () => {
    for (const m of [vidgen, fast]) {
      expect(m.params.duration_seconds.default).toBe(5);
      expect(m.params.aspect_ratio.default).toBe('16:9');
      expect(m.params.resolution.default).toBe('720p');
      expect(m.params.generate_audio.default).toBe(true);
      expect(m.params.fast.default).toBe(false);
    }
  });

  it('uses the contract image defaults: 1 image, 1:1, no reference images', () => {
    expect(imagegen.params.num_images.default).toBe(1);
    expect(imagegen.params.num_images.min).toBe(1);
    expect(imagegen.params.num_images.max).toBe(4);
    expect(imagegen.params.aspect_ratio.default).toBe('1:1');
    // No references by default (the list may be empty); at most 9.
    expect(imagegen.params.image_urls.default).toEqual([]);
    expect(imagegen.params.image_urls).not.toHaveProperty('min_items');
    expect(imagegen.params.image_urls.max_items).toBe(9);
    expect(imagegen.params.image_urls.format).toBe('https-url');
  });

  it('requires a prompt of 1-4000 characters on every model', () => {
    expect(PROMPT_MAX).toBe(4000);
    for (const m of MODELS) {
      expect(m.params.prompt).toMatchObject({ type: 'string', required: true, min_length: 1, max_length: 4000 });
    }
  });

  it('offers image_url on vidgen-2.0 but not on the text-only fast variant', () => {
    expect(vidgen.params.image_url).toMatchObject({ required: false, format: 'https-url' });
    expect(fast.params).not.toHaveProperty('image_url');
  });

  it('makes every parameter other than prompt optional', () => {
    for (const m of MODELS) {
      const required = Object.entries(m.params)
        .filter(([, spec]) => spec.required)
        .map(([name]) => name);
      expect(required).toEqual(['prompt']);
    }
  });
});
