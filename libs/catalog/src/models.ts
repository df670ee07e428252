/**
 * The model catalog (contract section 1): ids, prices and accepted parameters. Prices are integers
 * in credits. Both the models endpoint and the jobs service's cost computation read this one table.
 */
import {
  FAST_VIDEO_MODEL,
  IMAGE_MODEL,
  imageRequest,
  VIDEO_MODEL,
  videoModelOf,
  videoRequest,
  type Mode,
  type ModelId,
  type Resolution,
} from '@mf/contracts';
import { paramsOf, type ParamSpec } from './params';

export type { Mode, ModelId, ParamSpec, Resolution };

export const IMAGE_PRICE = 50;

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
  capabilities: Mode[];
  submit_endpoint: string;
  params: Record<string, ParamSpec>;
  credits: CreditSpec | ImageCreditSpec;
}

const videoParams = (fast: boolean): Record<string, ParamSpec> =>
  fast
    ? paramsOf(videoRequest, { without: ['image_url'], descriptions: { fast: 'Must be true to select this model.' } })
    : paramsOf(videoRequest);

export const MODELS: readonly ModelSpec[] = [
  {
    id: VIDEO_MODEL,
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
    id: FAST_VIDEO_MODEL,
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
    id: IMAGE_MODEL,
    type: 'image',
    name: 'ImageGen 2',
    provider: 'ImageGen',
    description: 'Text-to-image, and image editing from 1-9 reference images.',
    capabilities: ['text-to-image', 'image-edit'],
    submit_endpoint: '/api/v1/image/imagegen/generate',
    params: paramsOf(imageRequest),
    credits: { per_image: IMAGE_PRICE, example_1_image: IMAGE_PRICE },
  },
];

export function findModel(id: string): ModelSpec | undefined {
  return MODELS.find((m) => m.id === id);
}

/** The per-second prices of the video model a submit selects. */
export function videoCredits(fast: boolean): CreditSpec {
  return MODELS.find((m) => m.id === videoModelOf(fast))!.credits as CreditSpec;
}

/** Cost of a video: duration x per-second price at the resolution (fast has one flat rate). */
export function videoCost(fast: boolean, durationSeconds: number, resolution: Resolution): number {
  return durationSeconds * videoCredits(fast).per_second_by_resolution[resolution];
}

export function imageCost(numImages: number): number {
  return IMAGE_PRICE * numImages;
}
