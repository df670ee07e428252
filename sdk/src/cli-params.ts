// The generation parameters of the CLI's flags, shared by `generate` and `estimate`.
import { int, str, UsageError, type Parsed } from './cli-args';
import { IMAGE_FIELD_FLAGS, VIDEO_FIELD_FLAGS, type FieldFlag } from './cli-fields';
import type { GenerateImageParams, GenerateVideoParams } from './types';

export const VIDEO_PARAM_FLAGS = VIDEO_FIELD_FLAGS.map((f) => f.flag);
export const IMAGE_PARAM_FLAGS = IMAGE_FIELD_FLAGS.map((f) => f.flag);

function valueOf(p: Parsed, { field, flag, sets }: FieldFlag): unknown {
  if (sets !== undefined) return p.flags.has(flag) ? sets : undefined;
  if (field.type === 'integer') return int(p, flag);
  const text = str(p, flag);
  if (!text) return undefined;
  if (field.type === 'number') {
    if (!Number.isFinite(Number(text))) throw new UsageError(`--${flag} must be a number`);
    return Number(text);
  }
  // A list is comma-separated: --image-urls https://a.test/1.png,https://a.test/2.png
  return field.type === 'string[]' ? text.split(',').map((s) => s.trim()) : text;
}

/** The body of the flags given: each field's value, in the flags' order; a required one missing is a usage error. */
export function paramsOfFlags(p: Parsed, flags: readonly FieldFlag[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const f of flags) {
    const value = valueOf(p, f);
    if (value !== undefined) params[f.field.name] = value;
    else if (f.field.required) throw new UsageError(`--${f.flag} is required`);
  }
  return params;
}

export function videoParams(p: Parsed): GenerateVideoParams {
  return paramsOfFlags(p, VIDEO_FIELD_FLAGS) as unknown as GenerateVideoParams;
}

export function imageParams(p: Parsed): GenerateImageParams {
  return paramsOfFlags(p, IMAGE_FIELD_FLAGS) as unknown as GenerateImageParams;
}
