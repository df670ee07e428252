import { DEFAULT_FAL_ENDPOINTS, parseFalEndpoints } from './fal-endpoints';

describe('parseFalEndpoints', () => {
  it('returns the defaults when no override is configured', () => {
    expect(parseFalEndpoints(undefined)).toEqual(DEFAULT_FAL_ENDPOINTS);
    expect(parseFalEndpoints('')).toEqual(DEFAULT_FAL_ENDPOINTS);
  });

  it('has default endpoints for every model and mode', () => {
    expect(DEFAULT_FAL_ENDPOINTS).toEqual({
      'vidgen-2.0': {
        'text-to-video': 'fal-ai/vidgen-2/text-to-video',
        'image-to-video': 'fal-ai/vidgen-2/image-to-video',
      },
      'vidgen-2.0-fast': { 'text-to-video': 'fal-ai/vidgen-2/fast/text-to-video' },
      'imagegen-2': { 'text-to-image': 'fal-ai/imagegen-2', 'image-edit': 'fal-ai/imagegen-2/edit' },
    });
  });

  it('returns the defaults for an empty override object', () => {
    expect(parseFalEndpoints('{}')).toEqual(DEFAULT_FAL_ENDPOINTS);
  });

  it('merges an override over the defaults, keeping the modes it does not mention', () => {
    const out = parseFalEndpoints(JSON.stringify({ 'vidgen-2.0': { 'text-to-video': 'custom/t2v' } }));
    expect(out['vidgen-2.0']).toEqual({
      'text-to-video': 'custom/t2v',
      'image-to-video': 'fal-ai/vidgen-2/image-to-video',
    });
    expect(out['vidgen-2.0-fast']).toEqual(DEFAULT_FAL_ENDPOINTS['vidgen-2.0-fast']);
    expect(out['imagegen-2']).toEqual(DEFAULT_FAL_ENDPOINTS['imagegen-2']);
  });

  it('adds a new mode to a known model', () => {
    const out = parseFalEndpoints(JSON.stringify({ 'imagegen-2': { upscale: 'fal-ai/imagegen-2/upscale' } }));
    expect(out['imagegen-2']).toEqual({ ...DEFAULT_FAL_ENDPOINTS['imagegen-2'], upscale: 'fal-ai/imagegen-2/upscale' });
  });

  it('never modifies the defaults', () => {
    const before = structuredClone(DEFAULT_FAL_ENDPOINTS);
    parseFalEndpoints(
      JSON.stringify({ 'vidgen-2.0': { 'text-to-video': 'custom/t2v' }, 'imagegen-2': { extra: 'x/y' } }),
    );
    expect(DEFAULT_FAL_ENDPOINTS).toEqual(before);
  });

  it('throws on text that is not JSON', () => {
    expect(() => parseFalEndpoints('{not json')).toThrow(SyntaxError);
  });

  it.each([['[]'], ['null'], ['"a string"'], ['42'], ['true']])('throws when the JSON %s is not an object', (json) => {
    expect(() => parseFalEndpoints(json)).toThrow('FAL_ENDPOINTS_JSON must be a JSON object');
  });

  it('throws naming an unknown model', () => {
    expect(() => parseFalEndpoints(JSON.stringify({ 'vidgen-9': { 'text-to-video': 'x' } }))).toThrow(
      'FAL_ENDPOINTS_JSON: unknown model vidgen-9',
    );
  });

  it('does not accept inherited object keys as model ids', () => {
    expect(() => parseFalEndpoints('{"toString": {"x": "y"}}')).toThrow('FAL_ENDPOINTS_JSON: unknown model toString');
  });

  it('rejects a __proto__ key without polluting Object.prototype', () => {
    expect(() => parseFalEndpoints('{"__proto__": {"polluted": "yes"}}')).toThrow(
      'FAL_ENDPOINTS_JSON: unknown model __proto__',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([['null'], ['"fal-ai/x"'], ['5'], ['[]']])('throws when a model maps to %s instead of modes', (modes) => {
    expect(() => parseFalEndpoints(`{"vidgen-2.0": ${modes}}`)).toThrow(
      'FAL_ENDPOINTS_JSON: vidgen-2.0 must map modes to paths',
    );
  });

  it.each([['""'], ['null'], ['7'], ['{}']])('throws when a mode path is %s', (path) => {
    expect(() => parseFalEndpoints(`{"imagegen-2": {"image-edit": ${path}}}`)).toThrow(
      'FAL_ENDPOINTS_JSON: imagegen-2.image-edit must be a non-empty string',
    );
  });
});
