import { FAST_VIDEO_MODEL, IMAGE_MODEL, VIDEO_MODEL, type ModelId } from '@mf/contracts';

/** Upstream (fal) endpoint paths per model and mode. Overridable by configuration (FAL_ENDPOINTS_JSON). */
export type FalEndpoints = Record<ModelId, Record<string, string>>;

export const DEFAULT_FAL_ENDPOINTS: FalEndpoints = {
  [VIDEO_MODEL]: {
    'text-to-video': 'fal-ai/vidgen-2/text-to-video',
    'image-to-video': 'fal-ai/vidgen-2/image-to-video',
  },
  [FAST_VIDEO_MODEL]: { 'text-to-video': 'fal-ai/vidgen-2/fast/text-to-video' },
  [IMAGE_MODEL]: { 'text-to-image': 'fal-ai/imagegen-2', 'image-edit': 'fal-ai/imagegen-2/edit' },
};

/** Merges an override (JSON text, per model per mode) over the defaults; throws on a bad shape. */
export function parseFalEndpoints(json: string | undefined): FalEndpoints {
  if (!json) return DEFAULT_FAL_ENDPOINTS;
  const parsed: unknown = JSON.parse(json);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('FAL_ENDPOINTS_JSON must be a JSON object');
  const out: FalEndpoints = structuredClone(DEFAULT_FAL_ENDPOINTS);
  for (const [model, modes] of Object.entries(parsed as Record<string, unknown>)) {
    // Own keys only: `in` would accept inherited names (toString, __proto__) and pollute prototypes.
    if (!Object.hasOwn(out, model)) throw new Error(`FAL_ENDPOINTS_JSON: unknown model ${model}`);
    if (!modes || typeof modes !== 'object' || Array.isArray(modes))
      throw new Error(`FAL_ENDPOINTS_JSON: ${model} must map modes to paths`);
    for (const [mode, path] of Object.entries(modes as Record<string, unknown>)) {
      if (typeof path !== 'string' || !path)
        throw new Error(`FAL_ENDPOINTS_JSON: ${model}.${mode} must be a non-empty string`);
      out[model as ModelId][mode] = path;
    }
  }
  return out;
}
