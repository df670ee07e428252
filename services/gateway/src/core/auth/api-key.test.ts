import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-key';

describe('API keys', () => {
  it('are random, prefixed, and stored only as a hash', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).not.toEqual(b.key);
    expect(a.key).toMatch(/^mf_live_[0-9A-Za-z]{40}$/);
    expect(a.key.startsWith(a.prefix)).toBe(true);
    expect(a.prefix).toHaveLength('mf_live_'.length + 8);
    expect(a.hash).toEqual(hashApiKey(a.key));
    expect(a.hash).not.toContain(a.key);
  });

  it('pass the shape check, and junk does not', () => {
    expect(looksLikeApiKey(generateApiKey().key)).toBe(true);
    expect(looksLikeApiKey("x' OR 1=1 --")).toBe(false);
    expect(looksLikeApiKey('a'.repeat(201))).toBe(false);
  });
});
