import type { ClientRequest } from 'node:http';
import type { Readable } from 'node:stream';
import { Axios, isAxiosError, type AxiosResponse } from 'axios';
import { guardedAgents, type SafeFetchPolicy } from '@mf/safe-fetch';
import type { PostResult } from '../domain/delivery-outcome';
import { describePostFailure } from './post-failure';

/** POSTs one signed webhook body; never throws: every way it can end is a PostResult. */
export type WebhookPoster = (url: string, rawBody: string, headers: Record<string, string>) => Promise<PostResult>;

/** The response excerpt kept for the delivery detail; the rest is not our business. */
const MAX_RESPONSE_BYTES = 4096;
/**
 * A connection is kept this long after an answer for the next delivery to the same host (saves a
 * TCP connect, and a TLS handshake on https). Short, below the idle timeouts servers commonly use
 * (gunicorn 2 s, Node and uvicorn 5 s), so a receiver rarely closes one as we reuse it.
 */
const KEEP_IDLE_MS = 1000;
/** Sends on kept connections that the receiver turned out to have closed, at most, per attempt. */
const MAX_STALE_RESENDS = 3;

export interface PosterOptions {
  policy: SafeFetchPolicy;
  /** The whole attempt: DNS, connect, send, response headers. */
  timeoutMs: number;
}

export function createWebhookPoster({ policy, timeoutMs }: PosterOptions): WebhookPoster {
  // A bare Axios instance, not axios.create(): nothing set on the global defaults (a proxy, an
  // adapter, headers) may reach a customer's host or bypass the guarded agents.
  const client = new Axios({});
  // The agents check every address at connect time, so a DNS answer that changed since the URL
  // was saved (rebinding) cannot point a delivery at an internal host.
  const { httpAgent, httpsAgent } = guardedAgents(policy, { idleTimeoutMs: KEEP_IDLE_MS });

  return async (url, rawBody, headers) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const send = (): Promise<AxiosResponse<Readable>> =>
      client.request<Readable>({
        url,
        method: 'post',
        adapter: 'http',
        data: rawBody,
        // false drops the Accept-Encoding axios would add: we send exactly the documented headers.
        headers: { ...headers, 'Accept-Encoding': false },
        responseType: 'stream',
        decompress: false,
        maxRedirects: 0,
        proxy: false,
        httpAgent,
        httpsAgent,
        timeout: timeoutMs,
        signal: controller.signal,
        validateStatus: () => true,
        maxBodyLength: -1,
        maxContentLength: -1,
      });
    try {
      let res: AxiosResponse<Readable> | undefined;
      for (let resends = 0; !res; resends++) {
        try {
          res = await send();
        } catch (err) {
          // A kept connection the receiver closed while idle, as we reused it, fails before any
          // answer: sent again on another connection, as HTTP clients do, within the same attempt
          // (its time limit included). The receiver may have seen it: at least once, as always.
          if (resends >= MAX_STALE_RESENDS || controller.signal.aborted || !closedWhileIdle(err)) throw err;
        }
      }
      const body = await readExcerpt(res.data, MAX_RESPONSE_BYTES, controller.signal);
      return { kind: 'response', status: res.status, body };
    } catch (err) {
      return describePostFailure(err, controller.signal.aborted);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The request went out on a reused connection that was reset or closed before any answer. */
function closedWhileIdle(err: unknown): boolean {
  if (!isAxiosError(err) || err.response) return false;
  const request = err.request as ClientRequest | undefined;
  return request?.reusedSocket === true && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
}

/**
 * Reads at most maxBytes of the body, or until it ends, fails or the attempt's time is up, then
 * drops the connection's rest and returns what was read (for the delivery detail): a receiver that
 * never finishes its body must not hold the delivery.
 */
function readExcerpt(body: Readable, maxBytes: number, signal: AbortSignal): Promise<string> {
  return new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    let read = 0;
    const done = (): void => {
      signal.removeEventListener('abort', done);
      body.destroy();
      resolve(Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'));
    };
    if (signal.aborted) return done();
    signal.addEventListener('abort', done, { once: true });
    body.on('data', (chunk: Buffer) => {
      if (read < maxBytes) chunks.push(chunk);
      read += chunk.length;
      if (read >= maxBytes) done();
    });
    body.once('end', done);
    body.once('error', done);
    body.once('close', done);
  });
}
