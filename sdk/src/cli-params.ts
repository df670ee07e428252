// The generation parameters of the CLI's flags, shared by `generate` and `estimate`.
import { int, str, UsageError, type Parsed } from './cli-args';
import type { GenerateImageParams, GenerateVideoParams } from './types';

export const VIDEO_PARAM_FLAGS = [
  'prompt',
  'duration',
  'resolution',
  'aspect',
  'no-audio',
  'fast',
  'image-url',
  'seed',
];
export const IMAGE_PARAM_FLAGS = ['prompt', 'num', 'aspect', 'seed'];

function prompt(p: Parsed): string {
  const value = str(p, 'prompt');
  if (!value) throw new UsageError('--prompt is required');
  return value;
}

export function videoParams(p: Parsed): GenerateVideoParams {
  const params: GenerateVideoParams = { prompt: prompt(p) };
  const duration = int(p, 'duration');
  if (duration !== undefined) params.duration_seconds = duration as GenerateVideoParams['duration_seconds'];
  const resolution = str(p, 'resolution');
  if (resolution) params.resolution = resolution as GenerateVideoParams['resolution'];
  const aspect = str(p, 'aspect');
  if (aspect) params.aspect_ratio = aspect as GenerateVideoParams['aspect_ratio'];
  if (p.flags.has('no-audio')) params.generate_audio = false;
  if (p.flags.has('fast')) params.fast = true;
  const imageUrl = str(p, 'image-url');
  if (imageUrl) params.image_url = imageUrl;
  const seed = int(p, 'seed');
  if (seed !== undefined) params.seed = seed;
  return params;
}

export function imageParams(p: Parsed): GenerateImageParams {
  const params: GenerateImageParams = { prompt: prompt(p) };
  const num = int(p, 'num');
  if (num !== undefined) params.num_images = num;
  const aspect = str(p, 'aspect');
  if (aspect) params.aspect_ratio = aspect as GenerateImageParams['aspect_ratio'];
  const seed = int(p, 'seed');
  if (seed !== undefined) params.seed = seed;
  return params;
}
