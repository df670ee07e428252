import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PREFIX = 'mf_live_';
const RANDOM_CHARS = 40; // 40 base62 chars = ~238 bits
const VISIBLE_CHARS = 8;

export interface NewApiKey {
  /** The full key: shown once, never stored. */
  key: string;
  /** Shown in listings: the fixed prefix plus the first random characters. */
  prefix: string;
  hash: string;
}

export function generateApiKey(): NewApiKey {
  // Rejection sampling keeps every character uniformly distributed.
  let body = '';
  while (body.length < RANDOM_CHARS) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && body.length < RANDOM_CHARS) body += ALPHABET[byte % 62];
    }
  }
  const key = `${KEY_PREFIX}${body}`;
  return { key, prefix: key.slice(0, KEY_PREFIX.length + VISIBLE_CHARS), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Cheap shape check before touching the database. */
export function looksLikeApiKey(value: string): boolean {
  return value.length <= 200 && /^[A-Za-z0-9_]+$/.test(value);
}
