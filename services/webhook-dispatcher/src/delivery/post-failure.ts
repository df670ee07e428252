import { FetchError, UnsafeUrlError } from '@mf/safe-fetch';
import type { PostResult } from '../domain/delivery-outcome';

const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ERR_CANCELED']);
const NETWORK_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ENOTFOUND: 'host could not be resolved',
  EAI_AGAIN: 'host could not be resolved',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
};

/**
 * Turns a failed POST into the short error text recorded for the attempt. The SSRF guard's
 * refusal arrives wrapped by axios (as its cause), so the cause chain is searched first.
 */
export function describePostFailure(err: unknown, timedOut: boolean): PostResult {
  const chain = causes(err);
  const unsafe = chain.find((e): e is UnsafeUrlError => e instanceof UnsafeUrlError);
  if (unsafe) return { kind: 'failure', refused: true, error: refusal(unsafe) };
  if (timedOut) return failure('timeout');
  if (chain.some((e) => e instanceof FetchError)) return failure('host could not be resolved');
  for (const e of chain) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === undefined) continue;
    if (TIMEOUT_CODES.has(code)) return failure('timeout');
    if (NETWORK_MESSAGES[code]) return failure(NETWORK_MESSAGES[code]);
    if (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|UNABLE_TO|SELF_SIGNED)/.test(code)) return failure(`tls error: ${code}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return failure(`network error: ${message.slice(0, 200)}`);
}

function failure(error: string): PostResult {
  return { kind: 'failure', refused: false, error };
}

function refusal(err: UnsafeUrlError): string {
  if (err.reason === 'private-address') return 'refused: private address';
  if (err.reason === 'scheme') return 'refused: http not allowed';
  return `refused: ${err.message}`;
}

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = err; e !== undefined && e !== null && chain.length < 6; e = (e as { cause?: unknown }).cause)
    chain.push(e);
  return chain;
}
