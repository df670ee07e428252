import Joi from 'joi';
import { chars, httpsUrl, named, notBlank, optional, says } from '../schema/rules';

/**
 * The two submit bodies of the contract (section 4) and every limit and enum they use, defined
 * here once: the gateway validates with these schemas, the jobs service checks its messages with
 * their internal form, the catalog shows them as the models' params, and the OpenAPI document, the
 * MCP tools and the SDK types are derived from them.
 */

export const VIDEO_DURATIONS = [4, 5, 6, 8, 10, 15] as const;
export const VIDEO_ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'] as const;
export const VIDEO_RESOLUTIONS = ['480p', '720p'] as const;
export const IMAGE_ASPECT_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4'] as const;
export const PROMPT_MAX = 4000;
export const IMAGE_URLS_MAX = 9;
export const NUM_IMAGES_MAX = 4;
export const SEED_MAX = 4294967295;

export type VideoDuration = (typeof VIDEO_DURATIONS)[number];
export type VideoAspectRatio = (typeof VIDEO_ASPECT_RATIOS)[number];
export type Resolution = (typeof VIDEO_RESOLUTIONS)[number];
export type ImageAspectRatio = (typeof IMAGE_ASPECT_RATIOS)[number];

const oneOf = (field: string, values: readonly (string | number)[]) => `${field} must be one of ${values.join(', ')}`;

const prompt = says(notBlank(chars({ min: 1, max: PROMPT_MAX })).required(), 'prompt is required (non-empty string)', {
  'string.maxChars': `prompt too long (max ${PROMPT_MAX} chars)`,
}).description(`What to generate, 1-${PROMPT_MAX} characters.`);

// null (the default) lets the jobs service pick one.
const seed = says(
  optional(Joi.number().integer().min(0).max(SEED_MAX).default(null)),
  `seed must be an integer between 0 and ${SEED_MAX}`,
).description('Seed for reproducible output; random when omitted.');

const bool = (field: string, fallback: boolean, description: string) =>
  says(optional(Joi.boolean().default(fallback)), `${field} must be a boolean (true or false)`).description(
    description,
  );

const video = {
  prompt,
  image_url: says(optional(httpsUrl().default(null)), 'image_url must be a https URL').description(
    'Reference image (https); makes the request image-to-video. Not allowed with fast: true.',
  ),
  fast: bool('fast', false, 'Use the fast text-to-video variant (vidgen-2.0-fast).'),
  duration_seconds: says(
    optional(
      Joi.number()
        .integer()
        .valid(...VIDEO_DURATIONS)
        .default(5),
    ),
    oneOf('duration_seconds', VIDEO_DURATIONS),
  ).description('Length of the video in seconds.'),
  aspect_ratio: says(
    optional(
      Joi.string()
        .valid(...VIDEO_ASPECT_RATIOS)
        .default('16:9'),
    ),
    oneOf('aspect_ratio', VIDEO_ASPECT_RATIOS),
  ).description('Frame aspect ratio.'),
  resolution: says(
    optional(
      Joi.string()
        .valid(...VIDEO_RESOLUTIONS)
        .default('720p'),
    ),
    oneOf('resolution', VIDEO_RESOLUTIONS),
  ).description('Output resolution.'),
  generate_audio: bool('generate_audio', true, 'Native sound effects and ambient audio.'),
  seed,
};

export const FAST_WITH_IMAGE = 'fast mode supports text-to-video only (no image_url)';

/** POST /api/v1/video/vidgen-2/generate */
export const videoRequest = named(
  Joi.object(video).custom((v: { fast?: boolean; image_url?: string }, helpers) =>
    v.fast && v.image_url ? helpers.message({ custom: FAST_WITH_IMAGE }) : v,
  ),
  'VideoGenerateRequest',
);

const image = {
  prompt,
  image_urls: says(
    optional(
      Joi.array().items(says(httpsUrl(), 'image_urls items must be https URLs')).max(IMAGE_URLS_MAX).default([]),
    ),
    'image_urls must be an array of https URLs',
    {
      'array.max': `image_urls must have at most ${IMAGE_URLS_MAX} items`,
    },
  ).description(`1-${IMAGE_URLS_MAX} https reference images; when non-empty the request is an edit.`),
  num_images: says(
    optional(Joi.number().integer().min(1).max(NUM_IMAGES_MAX).default(1)),
    `num_images must be 1-${NUM_IMAGES_MAX}`,
  ).description('How many images to generate.'),
  aspect_ratio: says(
    optional(
      Joi.string()
        .valid(...IMAGE_ASPECT_RATIOS)
        .default('1:1'),
    ),
    oneOf('aspect_ratio', IMAGE_ASPECT_RATIOS),
  ).description('Image aspect ratio.'),
  seed,
};

/** POST /api/v1/image/imagegen/generate */
export const imageRequest = named(Joi.object(image), 'ImageGenerateRequest');

/** The validated forms, as the jobs service receives them: every field present and the seed chosen. */
export const resolvedParams = (
  schema: Joi.ObjectSchema,
  className: string,
  nullable: string[] = [],
): Joi.ObjectSchema => {
  const fields = Object.keys((schema.describe() as { keys?: Record<string, unknown> }).keys ?? {}).filter(
    (f) => !nullable.includes(f),
  );
  const forked = schema
    .fork(fields, (s: Joi.Schema) => s.required())
    // No longer "null means not given": null is the value (no reference image).
    .fork(nullable, (s: Joi.Schema) => s.empty().allow(null).required())
    .keys({ seed: Joi.number().integer().min(0).max(SEED_MAX).required() });
  return named(forked, className);
};

export const videoParams = resolvedParams(videoRequest, 'VideoParams', ['image_url']);
export const imageParams = resolvedParams(imageRequest, 'ImageParams');
