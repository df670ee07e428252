import { canonicalJson } from './canonical-json';
import { requestFingerprint } from './fingerprint';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('keeps the order of arrays, which is meaningful', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('serialises scalars as JSON does', () => {
    expect(canonicalJson('a "quoted" é')).toBe(JSON.stringify('a "quoted" é'));
    expect(canonicalJson(5)).toBe('5');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(null)).toBe('null');
  });

  it('tells a missing body from a null body', () => {
    expect(canonicalJson(undefined)).toBe('');
    expect(canonicalJson(null)).toBe('null');
  });
});

describe('requestFingerprint', () => {
  const url = '/api/v1/image/imagegen/generate';

  it('is the same for bodies that differ only in key order or whitespace', () => {
    const a = JSON.parse('{"prompt":"a fox","num_images":2,"aspect_ratio":"16:9"}');
    const b = JSON.parse('{ "aspect_ratio" : "16:9",\n "num_images": 2, "prompt": "a fox" }');
    expect(requestFingerprint('POST', url, a)).toBe(requestFingerprint('POST', url, b));
  });

  it('is a sha256 in hex', () => {
    expect(requestFingerprint('POST', url, {})).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with the body, the path, the query or the method', () => {
    const base = requestFingerprint('POST', url, { prompt: 'a fox' });
    expect(requestFingerprint('POST', url, { prompt: 'a dog' })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/v1/video/vidgen-2/generate', { prompt: 'a fox' })).not.toBe(base);
    expect(requestFingerprint('POST', `${url}?x=1`, { prompt: 'a fox' })).not.toBe(base);
    expect(requestFingerprint('PUT', url, { prompt: 'a fox' })).not.toBe(base);
  });

  it('tells a number from its string', () => {
    expect(requestFingerprint('POST', url, { seed: 5 })).not.toBe(requestFingerprint('POST', url, { seed: '5' }));
  });

  it('tells no body from an empty object', () => {
    expect(requestFingerprint('POST', url, undefined)).not.toBe(requestFingerprint('POST', url, {}));
  });
});
