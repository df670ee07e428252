import { DEFAULT_SCOPE, isScope, SCOPES, type Scope } from '../auth/scopes';

/**
 * The API scopes an authorization request asks for, in SCOPES order, models:read always among
 * them. No scope parameter (or an empty one) asks for every scope, as scopes_supported advertises;
 * names that are not API scopes (a client's "openid", "offline_access") are ignored, which RFC 6749
 * §3.3 allows: the token response says what was granted.
 */
export function requestedScopes(requested: string[] | undefined): Scope[] {
  const named = (requested ?? []).map((s) => s.trim()).filter(Boolean);
  if (named.length === 0) return [...SCOPES];
  const set = new Set<string>([DEFAULT_SCOPE, ...named]);
  return SCOPES.filter((s) => set.has(s));
}

/** What the user approved: the checked scopes that were offered, plus models:read. Anything else is dropped. */
export function approvedScopes(offered: readonly Scope[], checked: unknown): Scope[] {
  const values = Array.isArray(checked) ? checked : checked === undefined ? [] : [checked];
  const set = new Set<string>([DEFAULT_SCOPE]);
  for (const v of values) if (typeof v === 'string' && isScope(v) && offered.includes(v)) set.add(v);
  return SCOPES.filter((s) => set.has(s));
}

/**
 * The scope list of a refresh request: a subset of the grant's, or null when it asks for more.
 * models:read stays whatever is asked: the contract puts it on every key.
 */
export function narrowedScopes(granted: readonly string[], requested: string[] | undefined): string[] | null {
  const named = (requested ?? []).map((s) => s.trim()).filter(Boolean);
  if (named.length === 0) return [...granted];
  if (!named.every((s) => granted.includes(s))) return null;
  return granted.filter((s) => s === DEFAULT_SCOPE || named.includes(s));
}

/** What the consent page says each scope allows (the dashboard's key form says the same). */
export { SCOPE_DESCRIPTIONS } from '@mf/contracts';
