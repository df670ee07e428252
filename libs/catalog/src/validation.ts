/**
 * The plumbing of request validation, shared by every validator of the API: a validator throws
 * `fail(message)` at the first problem and `run` turns that into `{ok: false, error}`.
 */
export type Validated<T> = { ok: true; value: T } | { ok: false; error: string };

class Invalid extends Error {}

export const fail = (message: string): never => {
  throw new Invalid(message);
};

export function run<T>(fn: () => T): Validated<T> {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, error: err.message };
    throw err;
  }
}

/** Given: neither absent nor null (null means "not given" for optional fields). */
export const given = (v: unknown): boolean => v !== undefined && v !== null;

/** An unknown field is an error naming it, so a typo never silently falls back to a default. */
export function rejectUnknownFields(obj: Record<string, unknown>, fields: readonly string[]): void {
  const unknown = Object.keys(obj).filter((k) => !fields.includes(k));
  if (unknown.length)
    fail(
      `unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => k.slice(0, 64)).join(', ')} (accepted: ${fields.join(', ')})`,
    );
}
