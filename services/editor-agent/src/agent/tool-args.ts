/**
 * Checking a tool call's arguments. A model's mistake is answered with a ToolError whose message
 * goes back to the model (it can correct itself); it never ends the turn. An explicit null counts
 * as "not given", as models often send null for optional fields.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

export type Args = Record<string, unknown>;

/** The arguments string of a tool call as an object with only these fields. */
export function parseArgs(raw: string, fields: readonly string[]): Args {
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    throw new ToolError('arguments are not valid JSON: send one JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ToolError('arguments must be a JSON object');
  const args = parsed as Args;
  const unknown = Object.keys(args).filter((k) => !fields.includes(k));
  if (unknown.length)
    throw new ToolError(
      `unknown argument${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => k.slice(0, 40)).join(', ')} (accepted: ${fields.join(', ')})`,
    );
  return args;
}

export const given = (v: unknown): boolean => v !== undefined && v !== null;

export function text(args: Args, field: string, max: number): string {
  const v = args[field];
  if (typeof v !== 'string' || v.trim() === '') throw new ToolError(`${field} is required (non-empty string)`);
  if ([...v].length > max) throw new ToolError(`${field} too long (max ${max} chars)`);
  return v;
}

export function optionalText(args: Args, field: string, max: number): string | undefined {
  return given(args[field]) ? text(args, field, max) : undefined;
}

export function oneOf<T extends string | number>(args: Args, field: string, allowed: readonly T[]): T {
  const v = args[field];
  if (!(allowed as readonly unknown[]).includes(v))
    throw new ToolError(`${field} must be one of ${allowed.join(', ')}`);
  return v as T;
}

export function number(args: Args, field: string, min: number, max: number, integer = false): number {
  const v = args[field];
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max) {
    throw new ToolError(`${field} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  }
  return v;
}
