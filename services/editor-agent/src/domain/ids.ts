import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Opaque random ids with a type prefix (prj_, vid_, ast_, clp_, trn_, exp_). */
export function newId(prefix: 'prj' | 'vid' | 'ast' | 'clp' | 'trn' | 'exp'): string {
  let id = '';
  while (id.length < 20)
    for (const byte of randomBytes(32)) if (byte < 248 && id.length < 20) id += ALPHABET[byte % 62];
  return `${prefix}_${id}`;
}
