import { validateImageRequest, validateVideoRequest } from './validate-request';

const errorOf = (r: { ok: boolean; error?: string }): string | undefined => (r.ok ? undefined : r.error);

describe('validateVideoRequest', () => {
  it('applies every default of the contract', () => {
    expect(validateVideoRequest({ prompt: 'a cat' })).toEqual({
      ok: true,
      value: {
        prompt: 'a cat',
        image_url: null,
        fast: false,
        duration_seconds: 5,
        aspect_ratio: '16:9',
        resolution: '720p',
        generate_audio: true,
        seed: null,
      },
    });
  });

  it('keeps every given value', () => {
    const body = {
      prompt: 'p',
      image_url: 'https://x.test/a.png',
      fast: false,
      duration_seconds: 15,
      aspect_ratio: '21:9',
      resolution: '480p',
      generate_audio: false,
      seed: 42,
    };
    expect(validateVideoRequest(body)).toEqual({ ok: true, value: body });
  });

  it.each([
    ['a missing prompt', {}, 'prompt is required (non-empty string)'],
    ['an empty prompt', { prompt: '' }, 'prompt is required (non-empty string)'],
    ['a blank prompt', { prompt: '   ' }, 'prompt is required (non-empty string)'],
    ['a non-string prompt', { prompt: 5 }, 'prompt is required (non-empty string)'],
    ['a prompt of 4001 chars', { prompt: 'x'.repeat(4001) }, 'prompt too long (max 4000 chars)'],
    [
      'a duration not in the list',
      { prompt: 'p', duration_seconds: 7 },
      'duration_seconds must be one of 4, 5, 6, 8, 10, 15',
    ],
    [
      'a duration as a string',
      { prompt: 'p', duration_seconds: '5' },
      'duration_seconds must be one of 4, 5, 6, 8, 10, 15',
    ],
    [
      'an unknown aspect ratio',
      { prompt: 'p', aspect_ratio: '2:1' },
      'aspect_ratio must be one of 16:9, 9:16, 1:1, 4:3, 3:4, 21:9',
    ],
    ['an unknown resolution', { prompt: 'p', resolution: '1080p' }, 'resolution must be one of 480p, 720p'],
    ['an http image_url', { prompt: 'p', image_url: 'http://x.test/a.png' }, 'image_url must be a https URL'],
    ['a non-URL image_url', { prompt: 'p', image_url: 'not a url' }, 'image_url must be a https URL'],
    [
      'fast with an image_url',
      { prompt: 'p', fast: true, image_url: 'https://x.test/a.png' },
      'fast mode supports text-to-video only (no image_url)',
    ],
    ['fast as a string', { prompt: 'p', fast: 'true' }, 'fast must be a boolean (true or false)'],
    [
      'generate_audio as a number',
      { prompt: 'p', generate_audio: 1 },
      'generate_audio must be a boolean (true or false)',
    ],
    ['a fractional seed', { prompt: 'p', seed: 1.5 }, 'seed must be an integer between 0 and 4294967295'],
    ['a negative seed', { prompt: 'p', seed: -1 }, 'seed must be an integer between 0 and 4294967295'],
    ['a seed as a string', { prompt: 'p', seed: '7' }, 'seed must be an integer between 0 and 4294967295'],
    [
      'a misspelt field',
      { prompt: 'p', duration: 10 },
      'unknown field: duration (accepted: prompt, image_url, fast, duration_seconds, aspect_ratio, resolution, generate_audio, seed)',
    ],
    ['an array body', [{ prompt: 'p' }], 'Request body must be a JSON object'],
    ['a null body', null, 'Request body must be a JSON object'],
    ['a string body', 'prompt', 'Request body must be a JSON object'],
    ['no body at all', undefined, 'Invalid JSON body'],
  ])('refuses %s', (_what, body, message) => {
    expect(errorOf(validateVideoRequest(body))).toBe(message);
  });

  it('counts prompt length in characters, not UTF-16 units', () => {
    expect(validateVideoRequest({ prompt: '😀'.repeat(4000) }).ok).toBe(true);
    expect(errorOf(validateVideoRequest({ prompt: '😀'.repeat(4001) }))).toBe('prompt too long (max 4000 chars)');
  });

  it('treats null optional fields as not given', () => {
    const r = validateVideoRequest({ prompt: 'p', image_url: null, seed: null, duration_seconds: null });
    expect(r).toMatchObject({ ok: true, value: { image_url: null, seed: null, duration_seconds: 5 } });
  });

  it('accepts fast text-to-video', () => {
    expect(validateVideoRequest({ prompt: 'p', fast: true })).toMatchObject({ ok: true, value: { fast: true } });
  });
});

describe('validateImageRequest', () => {
  it('applies every default of the contract', () => {
    expect(validateImageRequest({ prompt: 'a dog' })).toEqual({
      ok: true,
      value: { prompt: 'a dog', image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: null },
    });
  });

  it('accepts up to 9 https reference URLs', () => {
    const urls = Array.from({ length: 9 }, (_, i) => `https://x.test/${i}.png`);
    expect(validateImageRequest({ prompt: 'p', image_urls: urls, num_images: 4 })).toMatchObject({
      ok: true,
      value: { image_urls: urls, num_images: 4 },
    });
  });

  it.each([
    ['a missing prompt', {}, 'prompt is required (non-empty string)'],
    ['a prompt of 4001 chars', { prompt: 'x'.repeat(4001) }, 'prompt too long (max 4000 chars)'],
    ['an http reference', { prompt: 'p', image_urls: ['http://x.test/a.png'] }, 'image_urls items must be https URLs'],
    ['a non-string reference', { prompt: 'p', image_urls: [5] }, 'image_urls items must be https URLs'],
    [
      'image_urls not an array',
      { prompt: 'p', image_urls: 'https://x.test/a.png' },
      'image_urls must be an array of https URLs',
    ],
    [
      '10 references',
      { prompt: 'p', image_urls: Array.from({ length: 10 }, (_, i) => `https://x.test/${i}.png`) },
      'image_urls must have at most 9 items',
    ],
    ['0 images', { prompt: 'p', num_images: 0 }, 'num_images must be 1-4'],
    ['5 images', { prompt: 'p', num_images: 5 }, 'num_images must be 1-4'],
    ['num_images as a string', { prompt: 'p', num_images: '2' }, 'num_images must be 1-4'],
    [
      'a video-only aspect ratio',
      { prompt: 'p', aspect_ratio: '21:9' },
      'aspect_ratio must be one of 1:1, 16:9, 9:16, 4:3, 3:4',
    ],
    ['a bad seed', { prompt: 'p', seed: 2 ** 32 }, 'seed must be an integer between 0 and 4294967295'],
    [
      'a misspelt field',
      { prompt: 'p', num_image: 2 },
      'unknown field: num_image (accepted: prompt, image_urls, num_images, aspect_ratio, seed)',
    ],
  ])('refuses %s', (_what, body, message) => {
    expect(errorOf(validateImageRequest(body))).toBe(message);
  });
});
