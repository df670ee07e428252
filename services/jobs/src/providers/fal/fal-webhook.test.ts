import { generateKeyPairSync, sign } from 'node:crypto';
import { falSignedContent, FalWebhookKeys, keysOfJwks, verifyFalWebhook } from './fal-webhook';

const NOW = 1_800_000_000;
const fal = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const jwkOf = (k: typeof fal) => k.publicKey.export({ format: 'jwk' });

function signed(body: string, key = fal.privateKey, timestamp = NOW): Record<string, string> {
  const content = falSignedContent('req-1', 'user-1', String(timestamp), body);
  return {
    'x-fal-webhook-request-id': 'req-1',
    'x-fal-webhook-user-id': 'user-1',
    'x-fal-webhook-timestamp': String(timestamp),
    'x-fal-webhook-signature': sign(null, content, key).toString('hex'),
  };
}

describe('fal webhook signatures', () => {
  const keys = keysOfJwks({ keys: [jwkOf(fal)] });

  it('accepts a body signed with a published key within five minutes', () => {
    expect(verifyFalWebhook(keys, signed('{"a":1}'), '{"a":1}', NOW)).toBe(true);
    expect(verifyFalWebhook(keys, signed('{"a":1}', fal.privateKey, NOW - 299), '{"a":1}', NOW)).toBe(true);
  });

  it('refuses another body, another key, a stale timestamp and missing headers', () => {
    expect(verifyFalWebhook(keys, signed('{"a":1}'), '{"a":2}', NOW)).toBe(false);
    expect(verifyFalWebhook(keys, signed('{"a":1}', other.privateKey), '{"a":1}', NOW)).toBe(false);
    expect(verifyFalWebhook(keys, signed('{"a":1}', fal.privateKey, NOW - 301), '{"a":1}', NOW)).toBe(false);
    const { 'x-fal-webhook-user-id': _user, ...rest } = signed('{"a":1}');
    expect(verifyFalWebhook(keys, rest, '{"a":1}', NOW)).toBe(false);
    expect(verifyFalWebhook([], signed('{"a":1}'), '{"a":1}', NOW)).toBe(false);
  });

  it('takes only the ED25519 keys of a JWKS', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
    expect(keysOfJwks({ keys: [rsa, jwkOf(fal), { kty: 'OKP', crv: 'Ed25519', x: 42 }] })).toHaveLength(1);
    expect(keysOfJwks({})).toEqual([]);
  });
});

describe('fal webhook keys', () => {
  it('fetches once for concurrent callers and keeps the keys', async () => {
    let fetches = 0;
    const keys = new FalWebhookKeys(async () => {
      fetches++;
      return { keys: [jwkOf(fal)] };
    });
    const [a, b] = await Promise.all([keys.get(), keys.get()]);
    expect(a).toHaveLength(1);
    expect(b).toBe(a);
    await keys.get();
    // A refresh asked for right after a fetch waits its minute.
    await keys.get(true);
    expect(fetches).toBe(1);
  });

  it('has no keys while fal cannot be reached', async () => {
    const keys = new FalWebhookKeys(() => Promise.reject(new Error('down')));
    expect(await keys.get()).toEqual([]);
  });
});
