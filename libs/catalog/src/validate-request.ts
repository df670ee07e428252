import {
  imageRequest,
  validateBody,
  videoRequest,
  type ImageAspectRatio,
  type Resolution,
  type Validated,
  type VideoAspectRatio,
  type VideoDuration,
} from '@mf/contracts';

/**
 * Validation of the submit bodies with the contract's messages (section 7), in field order, by
 * their one definition (@mf/contracts api/generation.ts). Types are strict: "5" is not 5, "true"
 * is not true. An unknown field is an error naming it. An explicit null counts as "not given".
 */

export interface VideoRequest {
  prompt: string;
  image_url: string | null;
  fast: boolean;
  duration_seconds: VideoDuration;
  aspect_ratio: VideoAspectRatio;
  resolution: Resolution;
  generate_audio: boolean;
  /** null: pick one at random. */
  seed: number | null;
}

export interface ImageRequest {
  prompt: string;
  image_urls: string[];
  num_images: 1 | 2 | 3 | 4;
  aspect_ratio: ImageAspectRatio;
  seed: number | null;
}

export function validateVideoRequest(body: unknown): Validated<VideoRequest> {
  return validateBody(videoRequest, body);
}

export function validateImageRequest(body: unknown): Validated<ImageRequest> {
  return validateBody(imageRequest, body);
}
