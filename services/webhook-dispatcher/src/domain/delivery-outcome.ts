import type { HandlerOutcome } from '@mf/bus';

/** What one POST came to: an HTTP answer, or no answer at all. */
export type PostResult =
  /** `body`: the first 4 KB of the answer's body (UTF-8, lossy), when it was read. */
  | { kind: 'response'; status: number; body?: string }
  /** `refused`: the SSRF guard would not connect (the URL now points somewhere we never call). */
  | { kind: 'failure'; error: string; refused: boolean };

/**
 * The contract's delivery rules: 2xx is done; 408, 429, 5xx and any other non-2xx outside 4xx
 * (a 3xx: redirects are not followed) are retried; other 4xx are the receiver refusing, not retried.
 */
export function outcomeOfStatus(status: number): HandlerOutcome {
  if (status >= 200 && status <= 299) return 'ack';
  if (status === 408 || status === 429) return 'retry';
  if (status >= 400 && status <= 499) return 'ack';
  return 'retry';
}

/** A refused URL stays refused on retry, so it is recorded and dropped; any other failure is retried. */
export function outcomeOf(result: PostResult): HandlerOutcome {
  if (result.kind === 'response') return outcomeOfStatus(result.status);
  return result.refused ? 'ack' : 'retry';
}
