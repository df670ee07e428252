import { AppError } from '@mf/errors';
import { assertScope, type AuthContext } from './auth-context';

const auth = (scopes: string[]): AuthContext => ({ userId: 1, apiKeyId: 2, scopes });

/** What assertScope threw, or undefined when it let the caller through. */
function thrownBy(fn: () => void): AppError | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

describe('assertScope', () => {
  it('lets a caller whose key has the scope through', () => {
    expect(thrownBy(() => assertScope(auth(['models:read', 'editor:write']), 'editor:write'))).toBeUndefined();
  });

  it('throws the 403 naming the missing scope exactly, in the contract body', () => {
    const err = thrownBy(() => assertScope(auth(['models:read']), 'editor:write'));
    expect(err?.kind).toBe('forbidden');
    expect(err?.body).toEqual({
      error: 'This API key lacks the required scope: editor:write',
      required_scope: 'editor:write',
    });
  });

  it('refuses a key with no scopes at all', () => {
    expect(thrownBy(() => assertScope(auth([]), 'editor:read'))?.kind).toBe('forbidden');
  });

  it('does not accept a scope that merely starts with the required one, nor one the required one starts with', () => {
    expect(thrownBy(() => assertScope(auth(['video:write']), 'video'))?.body).toEqual({
      error: 'This API key lacks the required scope: video',
      required_scope: 'video',
    });
    expect(thrownBy(() => assertScope(auth(['editor']), 'editor:write'))?.kind).toBe('forbidden');
  });
});
