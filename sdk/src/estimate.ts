import { FAST_VIDEO_MODEL, IMAGE_MODEL, VIDEO_MODEL } from './generated/contract-values';
import type { EstimateParams, GenerateImageParams, GenerateVideoParams } from './types';

/**
 * The estimate body for what would be submitted: the submit's parameters plus the model they
 * select (a video with `fast: true` is vidgen-2.0-fast). `client.estimate(estimateOfVideo(params))`
 * prices exactly what `client.generateVideo(params)` would charge.
 */
export function estimateOfVideo(params: GenerateVideoParams): EstimateParams {
  return { ...params, model: params.fast ? FAST_VIDEO_MODEL : VIDEO_MODEL };
}

export function estimateOfImage(params: GenerateImageParams): EstimateParams {
  return { ...params, model: IMAGE_MODEL };
}
