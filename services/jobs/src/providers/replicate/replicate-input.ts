import type { ImageParams, VideoParams } from '@mf/contracts';
import { UnsupportedParameterError, type ProviderJob } from '../provider';

/**
 * Our parameters as a Replicate model's `input` (docs/providers.md, "replicate"). Replicate models
 * each publish their own input schema (an OpenAPI `Input` object); when we have it, a value the
 * model does not offer (an enum or range it does not allow) fails the attempt here, inputs the
 * model does not take are left out, and the inputs a request cannot do without (prompt, duration,
 * aspect ratio, reference images, several outputs) must exist.
 */

/** The parts of a model's Input schema we read: each property's type, enum and range. */
export interface InputProperty {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
}
export type InputSchema = Record<string, InputProperty>;

/** Inputs a request cannot do without (when it uses them): a model without one cannot honour the request. */
const ESSENTIAL = new Set(['prompt', 'duration', 'aspect_ratio', 'image', 'input_image', 'image_input', 'num_outputs']);

/** The input before it is checked against a schema. */
export function replicateInput(job: ProviderJob): Record<string, unknown> {
  if (job.type === 'video') {
    const p: VideoParams = job.params;
    return {
      prompt: p.prompt,
      duration: p.duration_seconds,
      aspect_ratio: p.aspect_ratio,
      resolution: p.resolution,
      generate_audio: p.generate_audio,
      seed: p.seed,
      ...(p.image_url ? { image: p.image_url } : {}),
    };
  }
  const p: ImageParams = job.params;
  return {
    prompt: p.prompt,
    aspect_ratio: p.aspect_ratio,
    ...(p.num_images > 1 ? { num_outputs: p.num_images } : {}),
    seed: p.seed,
    output_format: 'png',
    // One reference: input_image (the editing models' name); several: image_input, a list.
    ...(p.image_urls.length === 1 ? { input_image: p.image_urls[0] } : {}),
    ...(p.image_urls.length > 1 ? { image_input: p.image_urls } : {}),
  };
}

/** The input checked against the model's schema (unchanged without one); throws UnsupportedParameterError. */
export function fitToSchema(
  input: Record<string, unknown>,
  schema: InputSchema | null,
  model: string,
): Record<string, unknown> {
  if (!schema) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const prop = schema[key];
    if (!prop) {
      if (ESSENTIAL.has(key)) throw new UnsupportedParameterError(`${model} takes no ${key} input`);
      continue;
    }
    if (prop.enum && !prop.enum.includes(value)) {
      throw new UnsupportedParameterError(
        `${model} does not offer ${key} ${String(value)} (it offers ${prop.enum.map(String).join(', ')})`,
      );
    }
    if (
      typeof value === 'number' &&
      ((prop.minimum !== undefined && value < prop.minimum) || (prop.maximum !== undefined && value > prop.maximum))
    ) {
      throw new UnsupportedParameterError(
        `${model} takes ${key} from ${prop.minimum ?? '-'} to ${prop.maximum ?? '-'}, not ${value}`,
      );
    }
    out[key] = value;
  }
  return out;
}

/**
 * The Input properties of a model's OpenAPI schema (`latest_version.openapi_schema` of the model,
 * or `openapi_schema` of a version). Cog writes enums as `allOf: [{$ref}]` to a named schema.
 */
export function inputSchemaOf(openapi: unknown): InputSchema | null {
  const schemas = get(openapi, 'components', 'schemas');
  const props = get(schemas, 'Input', 'properties');
  if (!props || typeof props !== 'object') return null;
  const out: InputSchema = {};
  for (const [name, raw] of Object.entries(props as Record<string, unknown>)) {
    let prop = raw as Record<string, unknown>;
    const ref = get(prop, 'allOf', 0, '$ref') ?? prop.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      prop = {
        ...prop,
        ...((get(schemas, ref.slice('#/components/schemas/'.length)) as Record<string, unknown>) ?? {}),
      };
    }
    out[name] = {
      type: typeof prop.type === 'string' ? prop.type : undefined,
      enum: Array.isArray(prop.enum) ? prop.enum : undefined,
      minimum: typeof prop.minimum === 'number' ? prop.minimum : undefined,
      maximum: typeof prop.maximum === 'number' ? prop.maximum : undefined,
    };
  }
  return out;
}

/** Progress from a prediction's logs: the last "NN%|" (tqdm) or "step n/m" they show, as 0..1. */
export function progressFromLogs(logs: unknown): number | undefined {
  if (typeof logs !== 'string' || !logs) return undefined;
  const tail = logs.slice(-4000);
  const percents = [...tail.matchAll(/(\d{1,3})%\|/g)];
  if (percents.length) return Math.min(1, Number(percents[percents.length - 1][1]) / 100);
  const steps = [...tail.matchAll(/(\d+)\s*\/\s*(\d+)\s*\[/g)];
  if (steps.length) {
    const [, done, total] = steps[steps.length - 1];
    if (Number(total) > 0) return Math.min(1, Number(done) / Number(total));
  }
  return undefined;
}

function get(value: unknown, ...path: (string | number)[]): unknown {
  let v = value;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}
