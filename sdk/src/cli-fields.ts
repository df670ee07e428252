// The CLI's generation flags, one per field of the submit bodies (generated/contract-values.ts,
// from the contract): a field added to a body is a flag of `generate` and `estimate`.
import { IMAGE_REQUEST_FIELDS, VIDEO_REQUEST_FIELDS, type RequestField } from './generated/contract-values';

/** A field's flag. A boolean flag takes no value: given, it sets the field to `sets`. */
export interface FieldFlag {
  field: RequestField;
  flag: string;
  sets?: boolean;
}

const kebab = (name: string): string => name.replace(/_/g, '-');

/**
 * The flags of a body's fields: those named in `short` first, in its order and by its names (the
 * usage's), then every other field as --<its-name> (a boolean defaulting to true: --no-<its-name>).
 */
export function fieldFlags(fields: readonly RequestField[], short: Record<string, string> = {}): FieldFlag[] {
  const listed = Object.keys(short);
  const rank = (f: RequestField): number =>
    listed.includes(f.name) ? listed.indexOf(f.name) : listed.length + fields.indexOf(f);
  return [...fields]
    .sort((a, b) => rank(a) - rank(b))
    .map((field) => {
      const on = field.type === 'boolean' && field.default === true;
      const flag = short[field.name] ?? (on ? `no-${kebab(field.name)}` : kebab(field.name));
      return field.type === 'boolean' ? { field, flag, sets: !on } : { field, flag };
    });
}

export const VIDEO_FIELD_FLAGS = fieldFlags(VIDEO_REQUEST_FIELDS, {
  prompt: 'prompt',
  duration_seconds: 'duration',
  resolution: 'resolution',
  aspect_ratio: 'aspect',
  generate_audio: 'no-audio',
  fast: 'fast',
  image_url: 'image-url',
  seed: 'seed',
});

export const IMAGE_FIELD_FLAGS = fieldFlags(IMAGE_REQUEST_FIELDS, {
  prompt: 'prompt',
  num_images: 'num',
  aspect_ratio: 'aspect',
  seed: 'seed',
});

/** The generation flags that take no value. */
export const VALUELESS_FIELD_FLAGS = [...VIDEO_FIELD_FLAGS, ...IMAGE_FIELD_FLAGS]
  .filter((f) => f.sets !== undefined)
  .map((f) => f.flag);

/** What a flag's value looks like in the usage: the field's default, else its kind. */
function placeholder({ field, flag }: FieldFlag): string {
  if (field.required) return flag.charAt(0).toUpperCase();
  const d = field.default;
  if (d !== undefined && d !== null && !Array.isArray(d)) return String(d);
  const one = field.type === 'integer' || field.type === 'number' ? 'N' : /url/.test(field.name) ? 'URL' : 'TEXT';
  return field.type === 'string[]' ? `${one},...` : one;
}

/** The usage of a body's flags (`--prompt P [--duration 5] [--fast] ...`): the fields as they are now. */
export function flagsUsage(flags: readonly FieldFlag[]): string[] {
  return flags.map((f) => {
    if (f.sets !== undefined) return `[--${f.flag}]`;
    const one = `--${f.flag} ${placeholder(f)}`;
    return f.field.required ? one : `[${one}]`;
  });
}

/** Words joined into lines of at most `width` characters, every line after the first indented. */
export function wrapUsage(words: readonly string[], indent: number, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = ' '.repeat(indent) + word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}
