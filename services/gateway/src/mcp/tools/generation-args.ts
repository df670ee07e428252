import Joi from 'joi';
import { fieldsOf } from '@mf/contracts';

/**
 * generate_media's arguments and its description's parameter lists, read off the two submit
 * schemas: every field of either body is an argument (prompt first, then the image-only fields,
 * the video-only ones, and those both take), so a field added to a submit body is a tool argument
 * with the contract's own type, limits and description. The wording gives some of them the tool's own text.
 */
export interface GenerationArgsWording {
  /** Replaces an argument's description: fields of one type get "Image only: "/"Video only: " before it. */
  args: Record<string, string>;
  /** An argument's schema when both bodies take it but with different values (aspect_ratio). */
  merged: Record<string, Joi.Schema>;
}

interface SubmitSchemas {
  video: Joi.ObjectSchema;
  image: Joi.ObjectSchema;
}

export function generationArgs(schemas: SubmitSchemas, wording: GenerationArgsWording): Record<string, Joi.Schema> {
  const video = fieldsOf(schemas.video);
  const image = fieldsOf(schemas.image);
  const shared = video.filter((f) => image.includes(f));
  const [first, ...rest] = shared;
  const only = (fields: string[], other: string[]) => fields.filter((f) => !other.includes(f));
  const args: Record<string, Joi.Schema> = {};
  const add = (field: string, schema: Joi.ObjectSchema, prefix: string) => {
    const own = schema.extract(field);
    const text = wording.args[field];
    args[field] =
      wording.merged[field] ?? (text || prefix ? own.description(`${prefix}${text ?? describedAs(own)}`) : own);
  };
  add(first, schemas.video, '');
  for (const f of only(image, video)) add(f, schemas.image, 'Image only: ');
  for (const f of only(video, image)) add(f, schemas.video, 'Video only: ');
  for (const f of rest) add(f, schemas.video, '');
  return args;
}

/** "prompt; optional a (note), b, c (note)": the fields of one submit body for the tool's description. */
export function fieldList(schema: Joi.ObjectSchema, notes: Record<string, string>): string {
  const [required, ...optional] = fieldsOf(schema);
  const shown = optional.map((f) => (notes[f] ? `${f} (${notes[f]})` : f));
  return `${required}; optional ${shown.join(', ')}`;
}

const describedAs = (schema: Joi.Schema): string =>
  (schema.describe() as { flags?: { description?: string } }).flags?.description ?? '';
