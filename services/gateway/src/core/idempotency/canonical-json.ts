/**
 * JSON with object keys sorted at every depth and no whitespace, so two bodies that differ only in
 * key order or formatting serialise the same. Arrays keep their order (it is meaningful).
 * `undefined` (no body at all) is the empty string, distinct from a `null` body.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
