import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type http from 'node:http';
import type https from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { ProviderSubmitError } from './provider';

/** What every HTTP adapter is given. */
export interface HttpAdapterDeps {
  /** The provider's name in the providers document. */
  name: string;
  baseUrl: string;
  apiKey?: string;
  /** Total time allowed for each HTTP call (not for result downloads). */
  timeoutMs: number;
  /** Largest result file downloaded, bytes. */
  resultMaxBytes: number;
  /** Tests pass an agent that trusts a self-signed CA. */
  httpsAgent?: https.Agent;
  httpAgent?: http.Agent;
}

/** Summary of a failed HTTP exchange that is safe to log or attach as a cause (no headers, no body). */
export interface HttpProblem {
  httpStatus?: number;
  code?: string;
}

// Upstream JSON answers are small (ids, URLs, states); a cap keeps a misbehaving upstream from filling memory.
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;
/** Result downloads may take this long whatever the per-call timeout. */
export const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;

/**
 * An axios client for one upstream: every status is the adapter's to classify (no throw on non-2xx),
 * no redirects (one could carry the key elsewhere), bounded answers.
 */
export function upstreamClient(
  deps: Pick<HttpAdapterDeps, 'baseUrl' | 'timeoutMs' | 'httpsAgent' | 'httpAgent'>,
  headers: Record<string, string>,
): AxiosInstance {
  return axios.create({
    baseURL: deps.baseUrl,
    headers: { Accept: 'application/json', ...headers },
    httpsAgent: deps.httpsAgent,
    httpAgent: deps.httpAgent,
    timeout: deps.timeoutMs,
    maxRedirects: 0,
    maxContentLength: MAX_ANSWER_BYTES,
    maxBodyLength: 64 * 1024 * 1024,
    responseType: 'json',
    validateStatus: () => true,
  });
}

export function transportProblem(err: unknown): HttpProblem {
  if (axios.isAxiosError(err)) {
    // An AbortSignal.timeout abort surfaces as ERR_CANCELED; name it for what it is.
    const code =
      err.code === 'ERR_CANCELED' || err.code === 'ECONNABORTED' ? 'ETIMEDOUT' : (err.code ?? 'network error');
    return err.response ? { httpStatus: err.response.status, code } : { code };
  }
  return { code: 'network error' };
}

/** A submit call: transport failures and non-2xx answers become a ProviderSubmitError with our own wording. */
export async function submitCall(
  what: string,
  call: () => Promise<AxiosResponse<unknown>>,
): Promise<AxiosResponse<unknown>> {
  let res: AxiosResponse<unknown>;
  try {
    res = await call();
  } catch (err) {
    const problem = transportProblem(err);
    throw new ProviderSubmitError(`${what} submit failed: ${problem.code ?? 'network error'}`, problem);
  }
  // The body may echo the prompt or carry upstream internals: only the status leaves this function.
  if (res.status < 200 || res.status >= 300)
    throw new ProviderSubmitError(`${what} submit refused: HTTP ${res.status}`, {
      httpStatus: res.status,
    } satisfies HttpProblem);
  return res;
}

/**
 * A status call: transport failures and non-2xx answers (but those in `pass`) throw a safe Error
 * (the poller retries until a deadline).
 */
export async function statusCall(
  what: string,
  call: () => Promise<AxiosResponse<unknown>>,
  pass: number[] = [],
): Promise<AxiosResponse<unknown>> {
  let res: AxiosResponse<unknown>;
  try {
    res = await call();
  } catch (err) {
    // The axios error holds the request config, key included: only a summary travels on.
    throw new Error(`${what} status request failed: ${transportProblem(err).code ?? 'network error'}`);
  }
  if ((res.status < 200 || res.status >= 300) && !pass.includes(res.status))
    throw new Error(`${what} status request failed: HTTP ${res.status}`);
  return res;
}

/** Streams a GET into a file, refusing more than `maxBytes`; removes a partial file on failure. */
export async function downloadTo(
  client: AxiosInstance,
  url: string,
  dest: string,
  opts: { maxBytes: number; headers?: Record<string, string>; params?: Record<string, string> },
): Promise<void> {
  let res: AxiosResponse<NodeJS.ReadableStream>;
  try {
    res = await client.get<NodeJS.ReadableStream>(url, {
      responseType: 'stream',
      headers: { Accept: '*/*', ...opts.headers },
      params: opts.params,
      timeout: DOWNLOAD_TIMEOUT_MS,
      signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
      maxContentLength: opts.maxBytes,
    });
  } catch (err) {
    throw new Error(`result download failed: ${transportProblem(err).code ?? 'network error'}`);
  }
  if (res.status < 200 || res.status >= 300) {
    (res.data as unknown as { destroy?: () => void }).destroy?.();
    throw new Error(`result download failed: HTTP ${res.status}`);
  }
  let seen = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > opts.maxBytes ? new Error('result is larger than RESULT_MAX_BYTES') : null, chunk);
    },
  });
  try {
    await pipeline(res.data, limit, createWriteStream(dest));
  } catch (err) {
    await rm(dest, { force: true });
    throw new Error(`result download failed: ${(err as Error).message}`);
  }
}

export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

export function isHttpsUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/** Ids from the upstream go into URL paths: held to a safe alphabet rather than escaped. */
export const UPSTREAM_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
