import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The development key: the ASCII text "dev-only-webhook-secret-key-0000" in hex. Anyone who reads
 * this file can decrypt secrets stored under it, so a deployment must set WEBHOOK_SECRET_KEY.
 */
export const DEV_WEBHOOK_SECRET_KEY = Buffer.from('dev-only-webhook-secret-key-0000', 'utf8').toString('hex');

/** A 32-byte key written as 64 hex characters or as base64 (standard or url-safe). */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  // Buffer.from(.., 'base64') skips characters it does not know: check the alphabet first.
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    const key = Buffer.from(trimmed, 'base64');
    if (key.length === 32) return key;
  }
  throw new Error('must be 32 bytes, written as 64 hex characters or as base64');
}

/** Encrypts signing secrets at rest: AES-256-GCM, stored as base64(iv | tag | ciphertext). */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('AES-256-GCM needs a 32-byte key');
    this.key = key;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  /** Throws when the data was not sealed under this key or was altered. */
  open(sealed: string): string {
    const data = Buffer.from(sealed, 'base64');
    if (data.length < IV_BYTES + TAG_BYTES) throw new Error('sealed secret is too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}
