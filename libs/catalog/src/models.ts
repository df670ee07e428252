/**
 * The model catalog (contract section 1): ids, prices and accepted parameters. Prices are integers
 * in credits. Both the models endpoint and the jobs service's cost computation read this one table.
 */
export type ModelId = 'vidgen-2.0' | 'vidgen-2.0-fast' | 'imagegen-2';
export type Resolution = '480p' | '720p';

export const VIDEO_DURATIONS = [4, 5, 6, 8, 10, 15] as const;
export const VIDEO_ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'] as const;
export const VIDEO_RESOLUTIONS = ['480p', '720p'] as const;
export const IMAGE_ASPECT_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4'] as const;
export const PROMPT_MAX = 4000;
export const IMAGE_PRICE = 50;

export interface ParamSpec {
  type: 'string' | 'integer' | 'boolean' | 'string[]';
  required: boolean;
  description: string;
  default?: string | number | boolean | string[] | null;
  enum?: readonly (string | number)[];
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  min_items?: number;
  max_items?: number;
  format?: 'https-url';
}

export interface CreditSpec {
  base_per_second: number;
  per_second_by_resolution: Record<Resolution, number>;
  audio_surcharge_per_second: number;
  example_5s_with_audio: number;
}

export interface ImageCreditSpec {
  per_image: number;
  example_1_image: number;
}

export interface ModelSpec {
  id: ModelId;
  type: 'video' | 'image';
  name: string;
  provider: string;
  description: string;
  capabilities: string[];
  submit_endpoint: string;
  params: Record<string, ParamSpec>;
  credits: CreditSpec | ImageCreditSpec;
}

const prompt: ParamSpec = { type: 'string', required: true, min_length: 1, max_length: PROMPT_MAX, description: 'What to generate.' };
const seed: ParamSpec = { type: 'integer', required: false, default: null, description: 'Seed for reproducible output; random when omitted.' };

const videoParams = (fast: boolean): Record<string, ParamSpec> => ({
  prompt,
  ...(fast
    ? {}
    : { image_url: { type: 'string', required: false, format: 'https-url', description: 'Reference image (https); makes the request image-to-video. Not allowed with fast: true.' } as ParamSpec }),
  fast: { type: 'boolean', required: false, default: false, description: fast ? 'Must be true to select this model.' : 'Use the fast text-to-video variant (vidgen-2.0-fast).' },
  duration_seconds: { type: 'integer', required: false, default: 5, enum: VIDEO_DURATIONS, description: 'Length of the video in seconds.' },
  aspect_ratio: { type: 'string', required: false, default: '16:9', enum: VIDEO_ASPECT_RATIOS, description: 'Frame aspect ratio.' },
  resolution: { type: 'string', required: false, default: '720p', enum: VIDEO_RESOLUTIONS, description: 'Output resolution.' },
  generate_audio: { type: 'boolean', required: false, default: true, description: 'Native sound effects and ambient audio.' },
  seed,
});

export const MODELS: readonly ModelSpec[] = [
  {
    id: 'vidgen-2.0',
    type: 'video',
    name: 'VidGen 2.0',
    provider: 'VidGen',
    description: 'Text-to-video and image-to-video with native audio, 4-15 s at 480p or 720p.',
    capabilities: ['text-to-video', 'image-to-video'],
    submit_endpoint: '/api/v1/video/vidgen-2/generate',
    params: videoParams(false),
    credits: {
      base_per_second: 227,
      per_second_by_resolution: { '480p': 101, '720p': 227 },
      audio_surcharge_per_second: 0,
      example_5s_with_audio: 1135,
    },
  },
  {
    id: 'vidgen-2.0-fast',
    type: 'video',
    name: 'VidGen 2.0 Fast',
    provider: 'VidGen',
    description: 'Faster text-to-video variant with native audio (send fast: true to the VidGen 2.0 endpoint).',
    capabilities: ['text-to-video'],
    submit_endpoint: '/api/v1/video/vidgen-2/generate',
    params: videoParams(true),
    credits: {
      base_per_second: 181,
      per_second_by_resolution: { '480p': 181, '720p': 181 },
      audio_surcharge_per_second: 0,
      example_5s_with_audio: 905,
    },
  },
  {
    id: 'imagegen-2',
    type: 'image',
    name: 'ImageGen 2',
    provider: 'ImageGen',
    description: 'Text-to-image, and image editing from 1-9 reference images.',
    capabilities: ['text-to-image', 'image-edit'],
    submit_endpoint: '/api/v1/image/imagegen/generate',
    params: {
      prompt,
      image_urls: { type: 'string[]', required: false, default: [], min_items: 1, max_items: 9, format: 'https-url', description: 'Reference images (https); when non-empty the request is an edit.' },
      num_images: { type: 'integer', required: false, default: 1, min: 1, max: 4, description: 'How many images to generate.' },
      aspect_ratio: { type: 'string', required: false, default: '1:1', enum: IMAGE_ASPECT_RATIOS, description: 'Image aspect ratio.' },
      seed,
    },
    credits: { per_image: IMAGE_PRICE, example_1_image: IMAGE_PRICE },
  },
];

export function findModel(id: string): ModelSpec | undefined {
  return MODELS.find((m) => m.id === id);
}

/** Cost of a video: duration x per-second price at the resolution (fast has one flat rate). */
export function videoCost(fast: boolean, durationSeconds: number, resolution: Resolution): number {
  const model = MODELS.find((m) => m.id === (fast ? 'vidgen-2.0-fast' : 'vidgen-2.0'))!;
  return durationSeconds * (model.credits as CreditSpec).per_second_by_resolution[resolution];
}

export function imageCost(numImages: number): number {
  return IMAGE_PRICE * numImages;
}
