import { SEED_MAX } from '@mf/contracts';
import { fail, given, rejectUnknownFields, run, type Validated } from './validation';
import { IMAGE_ASPECT_RATIOS, PROMPT_MAX, VIDEO_ASPECT_RATIOS, VIDEO_DURATIONS, VIDEO_RESOLUTIONS } from './models';

/**
 * Validation of the submit bodies with the contract's messages (section 7), in field order. Types
 * are strict: "5" is not 5, "true" is not true. An unknown field is an error naming it, so a typo
 * (duration for duration_seconds) never silently falls back to a default and costs money.
 * An explicit null counts as "not given" for optional fields.
 */

export interface VideoRequest {
  prompt: string;
  image_url: string | null;
  fast: boolean;
  duration_seconds: (typeof VIDEO_DURATIONS)[number];
  aspect_ratio: (typeof VIDEO_ASPECT_RATIOS)[number];
  resolution: (typeof VIDEO_RESOLUTIONS)[number];
  generate_audio: boolean;
  /** null: pick one at random. */
  seed: number | null;
}

export interface ImageRequest {
  prompt: string;
  image_urls: string[];
  num_images: 1 | 2 | 3 | 4;
  aspect_ratio: (typeof IMAGE_ASPECT_RATIOS)[number];
  seed: number | null;
}

export const IMAGE_URLS_MAX = 9;

const VIDEO_FIELDS = ['prompt', 'image_url', 'fast', 'duration_seconds', 'aspect_ratio', 'resolution', 'generate_audio', 'seed'] as const;
const IMAGE_FIELDS = ['prompt', 'image_urls', 'num_images', 'aspect_ratio', 'seed'] as const;

function asObject(body: unknown, fields: readonly string[]): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) fail('Invalid JSON body');
  const obj = body as Record<string, unknown>;
  rejectUnknownFields(obj, fields);
  return obj;
}


function prompt(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') fail('prompt is required (non-empty string)');
  // Characters as a person counts them (code points), not UTF-16 units.
  if ([...(v as string)].length > PROMPT_MAX) fail(`prompt too long (max ${PROMPT_MAX} chars)`);
  return v as string;
}

export function isHttpsUrl(v: unknown): v is string {
  if (typeof v !== 'string' || v.length > 4096) return false;
  try {
    const u = new URL(v);
    return u.protocol === 'https:' && u.hostname !== '';
  } catch {
    return false;
  }
}

function oneOf<T extends string | number>(v: unknown, allowed: readonly T[], message: string): T {
  if (!(allowed as readonly unknown[]).includes(v)) fail(message);
  return v as T;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') fail(`${field} must be a boolean (true or false)`);
  return v as boolean;
}

function seed(v: unknown): number | null {
  if (!given(v)) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > SEED_MAX) fail(`seed must be an integer between 0 and ${SEED_MAX}`);
  return v as number;
}


export function validateVideoRequest(body: unknown): Validated<VideoRequest> {
  return run(() => {
    const b = asObject(body, VIDEO_FIELDS);
    const p = prompt(b.prompt);
    const imageUrl = given(b.image_url) ? (isHttpsUrl(b.image_url) ? b.image_url : fail('image_url must be a https URL')) : null;
    const fast = given(b.fast) ? bool(b.fast, 'fast') : false;
    if (fast && imageUrl !== null) fail('fast mode supports text-to-video only (no image_url)');
    return {
      prompt: p,
      image_url: imageUrl,
      fast,
      duration_seconds: given(b.duration_seconds) ? oneOf(b.duration_seconds, VIDEO_DURATIONS, `duration_seconds must be one of ${VIDEO_DURATIONS.join(', ')}`) : 5,
      aspect_ratio: given(b.aspect_ratio) ? oneOf(b.aspect_ratio, VIDEO_ASPECT_RATIOS, `aspect_ratio must be one of ${VIDEO_ASPECT_RATIOS.join(', ')}`) : '16:9',
      resolution: given(b.resolution) ? oneOf(b.resolution, VIDEO_RESOLUTIONS, `resolution must be one of ${VIDEO_RESOLUTIONS.join(', ')}`) : '720p',
      generate_audio: given(b.generate_audio) ? bool(b.generate_audio, 'generate_audio') : true,
      seed: seed(b.seed),
    };
  });
}

export function validateImageRequest(body: unknown): Validated<ImageRequest> {
  return run(() => {
    const b = asObject(body, IMAGE_FIELDS);
    const p = prompt(b.prompt);
    let imageUrls: string[] = [];
    if (given(b.image_urls)) {
      if (!Array.isArray(b.image_urls)) fail('image_urls must be an array of https URLs');
      const urls = b.image_urls as unknown[];
      if (urls.length > IMAGE_URLS_MAX) fail(`image_urls must have at most ${IMAGE_URLS_MAX} items`);
      if (!urls.every(isHttpsUrl)) fail('image_urls items must be https URLs');
      imageUrls = urls as string[];
    }
    const n = b.num_images;
    if (given(n) && (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 4)) fail('num_images must be 1-4');
    return {
      prompt: p,
      image_urls: imageUrls,
      num_images: (given(n) ? n : 1) as ImageRequest['num_images'],
      aspect_ratio: given(b.aspect_ratio) ? oneOf(b.aspect_ratio, IMAGE_ASPECT_RATIOS, `aspect_ratio must be one of ${IMAGE_ASPECT_RATIOS.join(', ')}`) : '1:1',
      seed: seed(b.seed),
    };
  });
}
