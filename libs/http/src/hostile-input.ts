import { isUtf8 } from 'node:buffer';

/**
 * Rules against hostile input that hold for every request, whatever the endpoint
 * (docs/api-behaviour.md "Hostile input"):
 *
 * - text is UTF-8 (a body with invalid bytes is `Invalid JSON body`, not silently repaired to U+FFFD);
 * - strings and field names hold no control characters other than tab, line feed and carriage
 *   return (NUL in particular: Postgres refuses it in text and jsonb, so it would end as a 500), and
 *   no unpaired UTF-16 surrogates (`"\ud800"` in JSON: not encodable as UTF-8, refused by jsonb);
 * - a JSON body is nested at most MAX_JSON_DEPTH levels (JSON.parse copes with any depth, slowly, but
 *   the recursive code after it, JSON.stringify on the bus for one, overflows the stack): checked on
 *   the raw bytes before parsing (nestedDeeperThan) and again on the parsed value.
 */

/** Deepest nesting of arrays and objects a JSON body may have; real bodies use four or five levels. */
export const MAX_JSON_DEPTH = 64;

/** C0 controls except tab, LF and CR, and DEL. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export type TextProblem = 'control character' | 'unpaired surrogate';

/** What is wrong with a string as text we store and pass on, or null when nothing is. */
export function textProblem(s: string): TextProblem | null {
  if (CONTROL_CHARACTER.test(s)) return 'control character';
  if (UNPAIRED_SURROGATE.test(s)) return 'unpaired surrogate';
  return null;
}

/** The message naming `field` for a text problem (400). */
export function textProblemMessage(field: string, problem: TextProblem): string {
  return problem === 'control character'
    ? `${field} must not contain control characters`
    : `${field} must be valid Unicode text (unpaired surrogate)`;
}

export const TOO_DEEP_MESSAGE = `JSON body nested too deeply (max ${MAX_JSON_DEPTH} levels)`;

/** Longest field path quoted in a message. */
const PATH_MAX = 200;

function childPath(parent: string, key: string | number): string {
  const path =
    typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key.slice(0, 64)}` : key.slice(0, 64);
  return path.length > PATH_MAX ? `${path.slice(0, PATH_MAX)}...` : path;
}

/**
 * The 400 message for the first hostile piece of a parsed JSON value (a body, a query), or null
 * when there is none. Walks iteratively: a body nested 500,000 levels deep must not overflow the
 * stack of the check meant to refuse it. `root` names the value itself (when it is a bare string).
 */
export function hostileJsonProblem(value: unknown, root = 'request body', maxDepth = MAX_JSON_DEPTH): string | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return textProblemMessage(path || root, problem);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > maxDepth) return TOO_DEEP_MESSAGE;
    if (Array.isArray(v)) {
      // Pushed in reverse so the first offending item is reported first.
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: childPath(path, i), depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      const keyProblem = textProblem(key);
      if (keyProblem) return textProblemMessage('field names', keyProblem);
      stack.push({ value: child, path: childPath(path, key), depth: depth + 1 });
    }
  }
  return null;
}

/**
 * Whether raw JSON text opens more than `maxDepth` arrays and objects inside one another, read from
 * the bytes before any parsing (brackets inside strings do not count). Checked before JSON.parse
 * like the size limit: parsing a megabyte of nested brackets costs V8 a third of a second of CPU,
 * which a client could ask for again and again; this scan costs about a millisecond.
 */
export function nestedDeeperThan(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}
const [QUOTE, BACKSLASH, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x22, 0x5c, 0x5b, 0x5d, 0x7b, 0x7d];

/** Whether raw request bytes are valid UTF-8 (the only encoding our JSON bodies may use). */
export function isValidUtf8(bytes: Buffer): boolean {
  return isUtf8(bytes);
}
