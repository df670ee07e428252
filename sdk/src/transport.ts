import { randomUUID } from 'node:crypto';
import { ConnectionError, errorFromResponse, parseRetryAfter } from './errors';
import type { ErrorBody } from './types';

/** The HTTP side of the client: one call with its retries, backoff, idempotency key and typed errors. */

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface RequestOptions {
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number;
  signal?: AbortSignal;
  /**
   * POST only: the Idempotency-Key to send (1-255 characters). Default: a fresh UUID per call. The
   * SDK's own retries of the call reuse it; pass your own to make your retries safe as well.
   */
  idempotencyKey?: string;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Call {
  method: Method;
  path: string;
  body?: unknown;
  query?: Record<string, string | undefined>;
  exportRoute?: boolean;
  opts?: RequestOptions;
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    // The signal's reason, as fetch rejects with it (an AbortError or the caller's own reason).
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Why a request got no answer, naming the server: Node's fetch says only "fetch failed" and keeps
 * the reason (ECONNREFUSED, ENOTFOUND, a TLS error) in `cause`.
 */
export function unreachable(baseUrl: string, err: unknown): string {
  const e = err as { message?: string; name?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no answer from ${baseUrl} in time (timeoutMs)`;
  const reason = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return `could not reach ${baseUrl} (${reason}). Is the server running, and is the base URL right?`;
}

export interface TransportSettings {
  baseUrl: string;
  apiKey: string;
  maxRetries: number;
  fetchImpl: FetchLike;
  userAgent: string;
  timeoutMs: number | undefined;
  retryBaseMs: number;
  retryMaxMs: number;
}

export class HttpTransport {
  constructor(private readonly s: TransportSettings) {}

  /**
   * Whether a failed attempt may be retried. GET and DELETE (idempotent): 429, 5xx and network
   * errors. POST: 429, 503 and network errors, always with the call's Idempotency-Key, so a request
   * that did run is answered from the server's record instead of running (and charging) twice; a
   * 500 or 502 would only be replayed, so it is not retried. PATCH and PUT: only 429 and 503, where
   * the request was not processed. A replayed answer is final for its key: never retried.
   */
  private static retryable(method: Method, status: number | 'network', replayed = false): boolean {
    if (replayed) return false;
    const idempotent = method === 'GET' || method === 'DELETE';
    if (status === 'network') return idempotent || method === 'POST';
    if (status === 429 || status === 503) return true;
    return idempotent && status >= 500;
  }

  /** Full-jitter exponential backoff, at least the server's Retry-After. */
  private delayMs(attempt: number, retryAfterSec: number | null): number {
    const exp = Math.min(this.s.retryMaxMs, this.s.retryBaseMs * 2 ** attempt);
    const jittered = exp / 2 + Math.random() * (exp / 2);
    if (retryAfterSec !== null)
      return Math.max(retryAfterSec * 1000, 0) + Math.random() * Math.min(250, this.s.retryBaseMs);
    return jittered;
  }

  private url(path: string, query?: Record<string, string | undefined>): string {
    const u = `${this.s.baseUrl}/api/v1${path}`;
    const q = Object.entries(query ?? {}).filter(([, v]) => v !== undefined && v !== '') as [string, string][];
    return q.length ? `${u}?${new URLSearchParams(q).toString()}` : u;
  }

  async request<T>(call: Call): Promise<T> {
    const maxRetries = Math.max(0, call.opts?.maxRetries ?? this.s.maxRetries);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.s.apiKey}`,
      accept: 'application/json',
      'user-agent': this.s.userAgent,
    };
    // One key for every attempt of this call: a retry of a request that did run replays its answer.
    if (call.method === 'POST') headers['idempotency-key'] = call.opts?.idempotencyKey ?? randomUUID();
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const url = this.url(call.path, call.query);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        const signals = [
          call.opts?.signal,
          this.s.timeoutMs ? AbortSignal.timeout(this.s.timeoutMs) : undefined,
        ].filter(Boolean) as AbortSignal[];
        const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
        res = await this.s.fetchImpl(url, { method: call.method, headers, body, signal });
      } catch (err) {
        if (call.opts?.signal?.aborted) throw err;
        if (attempt < maxRetries && HttpTransport.retryable(call.method, 'network')) {
          await sleep(this.delayMs(attempt, null), call.opts?.signal);
          continue;
        }
        throw new ConnectionError(`${call.method} ${url}: ${unreachable(this.s.baseUrl, err)}`, err);
      }
      const text = await res.text();
      let parsed: unknown = null;
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      if (res.ok) return parsed as T;
      if (
        attempt < maxRetries &&
        HttpTransport.retryable(call.method, res.status, res.headers.get('idempotent-replayed') === 'true')
      ) {
        await sleep(this.delayMs(attempt, parseRetryAfter(res.headers.get('retry-after'))), call.opts?.signal);
        continue;
      }
      const errBody =
        parsed && typeof parsed === 'object' && typeof (parsed as ErrorBody).error === 'string'
          ? (parsed as ErrorBody)
          : (parsed as string | null);
      throw errorFromResponse(res.status, errBody, res.headers, { exportRoute: call.exportRoute });
    }
  }
}
