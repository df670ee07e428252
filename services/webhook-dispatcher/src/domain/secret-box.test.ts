import { randomBytes } from 'node:crypto';
import { DEV_WEBHOOK_SECRET_KEY, parseSecretKey, SecretBox } from './secret-box';

describe('SecretBox', () => {
  const key = randomBytes(32);
  const secret = 'whsec_' + randomBytes(32).toString('base64url');

  it('stores a ciphertext that does not contain the secret and opens back to it', () => {
    const sealed = new SecretBox(key).seal(secret);
    const raw = Buffer.from(sealed, 'base64');
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
    expect(raw.includes(Buffer.from(secret))).toBe(false);
    // iv (12) + tag (16) + one ciphertext byte per plaintext byte
    expect(raw.length).toBe(12 + 16 + Buffer.byteLength(secret));
    expect(new SecretBox(key).open(sealed)).toBe(secret);
  });

  it('seals the same secret differently every time (fresh iv)', () => {
    const box = new SecretBox(key);
    expect(box.seal(secret)).not.toBe(box.seal(secret));
  });

  it('refuses to open under another key', () => {
    const sealed = new SecretBox(key).seal(secret);
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
  });

  it('refuses a ciphertext that was altered', () => {
    const raw = Buffer.from(new SecretBox(key).seal(secret), 'base64');
    raw[raw.length - 1] ^= 0x01;
    expect(() => new SecretBox(key).open(raw.toString('base64'))).toThrow();
  });
});

describe('parseSecretKey', () => {
  const key = randomBytes(32);

  it('reads 64 hex characters', () => {
    expect(parseSecretKey(key.toString('hex')).equals(key)).toBe(true);
  });

  it('reads standard and url-safe base64', () => {
    expect(parseSecretKey(key.toString('base64')).equals(key)).toBe(true);
    expect(parseSecretKey(key.toString('base64url')).equals(key)).toBe(true);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => parseSecretKey(randomBytes(16).toString('hex'))).toThrow('must be 32 bytes');
    expect(() => parseSecretKey(randomBytes(31).toString('base64'))).toThrow('must be 32 bytes');
    expect(() => parseSecretKey('not a key at all, not even close to one!!')).toThrow('must be 32 bytes');
  });

  it('has a development default that says what it is', () => {
    expect(parseSecretKey(DEV_WEBHOOK_SECRET_KEY).toString('utf8')).toBe('dev-only-webhook-secret-key-0000');
  });
});
