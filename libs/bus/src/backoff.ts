/** Exponential backoff with full jitter, capped: 1 s, 2 s, 4 s ... up to maxMs. */
export function backoffDelay(
  attempt: number,
  minMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exp = Math.min(maxMs, minMs * 2 ** Math.max(0, attempt - 1));
  // Jitter keeps a fleet of restarting services from reconnecting in lockstep.
  return Math.round(exp / 2 + (random() * exp) / 2);
}
