import { parseScopes, SCOPES } from './scopes';

describe('parseScopes', () => {
  it('always includes models:read', () => {
    expect(parseScopes(['video:write'])).toEqual(['models:read', 'video:write']);
    expect(parseScopes([])).toEqual(['models:read']);
  });

  it('expands "all" to every scope of the contract', () => {
    expect(parseScopes(['all'])).toEqual([...SCOPES]);
  });

  it('de-duplicates and orders scopes as the contract lists them', () => {
    expect(parseScopes(['image:write', ' video:write ', 'image:write'])).toEqual([
      'models:read',
      'video:write',
      'image:write',
    ]);
  });

  it('rejects an unknown scope, naming it', () => {
    expect(() => parseScopes(['video:write', 'video:admin'])).toThrow('unknown scope: video:admin');
  });
});
