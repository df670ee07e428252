import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * What "the same request" means for an Idempotency-Key: method, path with query, and the parsed
 * body in canonical form (key order and whitespace do not matter). sha256, hex.
 */
export function requestFingerprint(method: string, originalUrl: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${originalUrl}\n${canonicalJson(body)}`)
    .digest('hex');
}
