import { SCOPES } from '../auth/scopes';
import { approvedScopes, narrowedScopes, requestedScopes } from './scopes';

describe('OAuth scopes', () => {
  it('offers every API scope when the request names none, as scopes_supported advertises', () => {
    expect(requestedScopes(undefined)).toEqual([...SCOPES]);
    expect(requestedScopes([''])).toEqual([...SCOPES]);
  });

  it('offers the named API scopes plus models:read, ignoring names that are not API scopes', () => {
    expect(requestedScopes(['jobs:read', 'openid', 'offline_access', 'video:write'])).toEqual([
      'models:read',
      'video:write',
      'jobs:read',
    ]);
  });

  it('grants only the checked scopes that were offered, always with models:read', () => {
    const offered = requestedScopes(['jobs:read', 'video:write']);
    expect(approvedScopes(offered, 'jobs:read')).toEqual(['models:read', 'jobs:read']);
    expect(approvedScopes(offered, ['jobs:read', 'image:write', 'nonsense'])).toEqual(['models:read', 'jobs:read']);
    expect(approvedScopes(offered, undefined)).toEqual(['models:read']);
    expect(approvedScopes(offered, { 0: 'jobs:read' })).toEqual(['models:read']);
  });

  it('lets a refresh narrow the scopes but never widen them', () => {
    const granted = ['models:read', 'jobs:read', 'video:write'];
    expect(narrowedScopes(granted, undefined)).toEqual(granted);
    // models:read is on every key (the contract): narrowing keeps it.
    expect(narrowedScopes(granted, ['jobs:read'])).toEqual(['models:read', 'jobs:read']);
    expect(narrowedScopes(granted, ['jobs:read', 'image:write'])).toBeNull();
  });
});
