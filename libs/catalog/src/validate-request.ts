import {
  imageRequest,
  validateBody,
  videoRequest,
  type ImageParams,
  type Validated,
  type VideoParams,
} from '@mf/contracts';

/**
 * Validation of the submit bodies with the contract's messages (section 7), in field order, by
 * their one definition (@mf/contracts api/generation.ts). Types are strict: "5" is not 5, "true"
 * is not true. An unknown field is an error naming it. An explicit null counts as "not given".
 */

/** A validated request: the params the jobs service takes, but the seed may still be null (pick one at random). */
type Submitted<P extends { seed: number }> = Omit<P, 'seed'> & { seed: number | null };

export type VideoRequest = Submitted<VideoParams>;
export type ImageRequest = Submitted<ImageParams>;

export function validateVideoRequest(body: unknown): Validated<VideoRequest> {
  return validateBody(videoRequest, body);
}

export function validateImageRequest(body: unknown): Validated<ImageRequest> {
  return validateBody(imageRequest, body);
}
