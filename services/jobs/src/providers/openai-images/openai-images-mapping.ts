import type { ImageParams } from '@mf/contracts';
import { UnsupportedParameterError } from '../provider';

/**
 * Our image parameters as an OpenAI-compatible images request (docs/providers.md, "openai-images").
 * Sizes: OpenAI's models offer a few fixed sizes, so an aspect ratio they have no size for is refused
 * (the next route can try); other servers (LocalAI, self-hosted diffusion servers) take any size and
 * get about one megapixel. The operator's `sizes` in the providers document override both.
 */

type Aspect = ImageParams['aspect_ratio'];

/** About one megapixel, sides multiples of 16 (the local renderer's sizes). */
const GENERIC_SIZES: Record<Aspect, string> = {
  '1:1': '1024x1024',
  '16:9': '1344x768',
  '9:16': '768x1344',
  '4:3': '1152x864',
  '3:4': '864x1152',
};

interface Family {
  prefix: string;
  sizes: Partial<Record<Aspect, string>>;
  maxImages: number;
  edits: boolean;
}

/** Only sizes within 2 % of the aspect ratio: gpt-image's 1536x1024 is 3:2, neither 16:9 nor 4:3. */
const FAMILIES: Family[] = [
  { prefix: 'gpt-image', sizes: { '1:1': '1024x1024' }, maxImages: 10, edits: true },
  {
    prefix: 'dall-e-3',
    sizes: { '1:1': '1024x1024', '16:9': '1792x1024', '9:16': '1024x1792' },
    maxImages: 1,
    edits: false,
  },
  { prefix: 'dall-e-2', sizes: { '1:1': '1024x1024' }, maxImages: 10, edits: true },
];

export interface ImagesRequestPlan {
  model: string;
  prompt: string;
  n: number;
  size: string;
}

export function imagesRequest(
  model: string,
  p: ImageParams,
  overrides: Record<string, string> | undefined,
): ImagesRequestPlan {
  const family = FAMILIES.find((f) => model.startsWith(f.prefix));
  const size = overrides?.[p.aspect_ratio] ?? (family ? family.sizes[p.aspect_ratio] : GENERIC_SIZES[p.aspect_ratio]);
  if (!size)
    throw new UnsupportedParameterError(
      `${model} has no size for aspect ratio ${p.aspect_ratio} (set sizes in the providers document to accept an approximation)`,
    );
  if (family && p.num_images > family.maxImages)
    throw new UnsupportedParameterError(
      `${model} makes at most ${family.maxImages} image(s) per request, not ${p.num_images}`,
    );
  if (family && !family.edits && p.image_urls.length)
    throw new UnsupportedParameterError(`${model} does not edit images`);
  // No seed: the images API has none, so the same request may give other pixels.
  return { model, prompt: p.prompt, n: p.num_images, size };
}
