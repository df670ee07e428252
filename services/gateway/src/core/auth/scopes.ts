import { DEFAULT_SCOPE, SCOPES, type Scope } from '@mf/contracts';

/** The contract's scopes (section 5, defined in @mf/contracts). models:read is on every key. */
export { DEFAULT_SCOPE, SCOPES, type Scope };

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Parses a requested scope list ("all" or comma-separated names) into a sorted, de-duplicated
 * list that always includes models:read. Throws naming the first unknown scope.
 */
export function parseScopes(requested: string[]): Scope[] {
  const set = new Set<Scope>([DEFAULT_SCOPE]);
  for (const raw of requested) {
    const s = raw.trim();
    if (!s) continue;
    if (s === 'all') SCOPES.forEach((x) => set.add(x));
    else if (isScope(s)) set.add(s);
    else throw new Error(`unknown scope: ${s} (known: ${SCOPES.join(', ')}, or all)`);
  }
  return SCOPES.filter((s) => set.has(s));
}
