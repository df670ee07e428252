import { createWriteStream, promises as fs, type WriteStream } from 'node:fs';
import type http from 'node:http';
import type https from 'node:https';
import { addAbortSignal, pipeline as pipeInto, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Axios } from 'axios';
import { createGuardedAgents } from './agents';
import { FetchError, UnsafeUrlError } from './errors';
import { assertFetchableUrl, type SafeFetchPolicy } from './policy';
import { acceptHeader, ByteLimit, headerString, isAccepted } from './response-checks';

export interface DownloadOptions extends SafeFetchPolicy {
  /** Largest body accepted, in bytes (after any content decoding). */
  maxBytes: number;
  /** Time limit for the whole download: every DNS check, connection, redirect and the body. */
  timeoutMs: number;
  /** Redirects followed at most; each hop is checked like the first URL. */
  maxRedirects: number;
  /** restrict content types, e.g. ['image/'] prefixes */
  accept?: string[];
  /** Extra trusted CA (tests), added to Node's bundled roots. */
  ca?: string | Buffer;
  /**
   * Long-lived agents from keepAliveDownloadAgents (their own `ca` applies, not this one's), so
   * repeated downloads from one host reuse a connection instead of a TCP and TLS handshake each.
   * Without them each download has agents of its own, closed at its end.
   */
  agents?: Agents;
}

export interface DownloadedBuffer {
  body: Buffer;
  contentType: string | null;
  finalUrl: string;
}

export interface DownloadedFile {
  bytes: number;
  contentType: string | null;
  finalUrl: string;
}

const USER_AGENT = 'mediaforge-fetch/1.0';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// A bare Axios instance rather than axios.create(), which copies axios.defaults: headers, auth,
// a proxy or an adapter that other code sets on the global defaults must never reach (or bypass
// the checks for) a user-supplied host.
const client = new Axios({});

export interface Agents {
  httpAgent: http.Agent;
  httpsAgent: https.Agent;
}

interface OpenResponse {
  body: Readable;
  contentType: string | null;
  finalUrl: string;
}

/** Downloads to a Buffer within the limits. */
export async function downloadToBuffer(url: string, opts: DownloadOptions): Promise<DownloadedBuffer> {
  return withinLimits(opts, async (signal, agents) => {
    const res = await openChecked(url, opts, signal, agents);
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
    });
    await pipeline(res.body, new ByteLimit(opts.maxBytes), sink, { signal });
    return { body: Buffer.concat(chunks), contentType: res.contentType, finalUrl: res.finalUrl };
  });
}

/** Streams to a file within the limits; removes a partial file on failure. */
export async function downloadToFile(url: string, destPath: string, opts: DownloadOptions): Promise<DownloadedFile> {
  return withinLimits(opts, async (signal, agents) => {
    const res = await openChecked(url, opts, signal, agents);
    // Opened only now, so a refused or failed request never truncates an existing file.
    const out = createWriteStream(destPath);
    const limit = new ByteLimit(opts.maxBytes);
    try {
      await pipeline(res.body, limit, out, { signal });
    } catch (err) {
      await removePartialFile(out, destPath);
      throw err;
    }
    return { bytes: limit.bytes, contentType: res.contentType, finalUrl: res.finalUrl };
  });
}

/** What `downloadToStream` tells its consumer about the response. */
export interface DownloadedResponse {
  contentType: string | null;
  finalUrl: string;
}

/**
 * Hands the body, within the limits, to `consume` as it arrives (a storage write, say, with no
 * file in between) and resolves what consume resolves. The body stream fails, so consume's read of
 * it, when it grows past maxBytes, the time runs out or the connection drops before the end: a
 * consumer that makes its write visible only once the body has ended never keeps a partial one.
 * The time limit covers consume too. Download failures reject as FetchError/UnsafeUrlError;
 * consume's own (a full disk, a storage refusing) as they are.
 */
export async function downloadToStream<T>(
  url: string,
  opts: DownloadOptions,
  consume: (body: Readable, response: DownloadedResponse) => Promise<T>,
): Promise<T> {
  let consumerFailure: { err: unknown } | undefined;
  try {
    return await withinLimits(opts, async (signal, agents) => {
      const res = await openChecked(url, opts, signal, agents);
      // The callback form returns the limit: a failure anywhere in the chain destroys it with that
      // error, which its reader sees; destroying it (a consumer that stopped) drops the connection.
      const body = pipeInto(res.body, new ByteLimit(opts.maxBytes), () => {});
      addAbortSignal(signal, body);
      try {
        return await consume(body, { contentType: res.contentType, finalUrl: res.finalUrl });
      } catch (err) {
        if (body.errored) throw body.errored; // the download's failure, whatever consume made of it
        if (!signal.aborted) consumerFailure = { err };
        throw err;
      } finally {
        if (!body.readableEnded) body.destroy();
      }
    });
  } catch (err) {
    throw consumerFailure ? consumerFailure.err : err;
  }
}

/**
 * Runs one download under a single timer covering all of it, with agents of its own (so the
 * extra CA applies only here) that are torn down afterwards, or the caller's long-lived ones, and turns whatever failed into an
 * UnsafeUrlError or FetchError.
 */
async function withinLimits<T>(
  opts: DownloadOptions,
  work: (signal: AbortSignal, agents: Agents) => Promise<T>,
): Promise<T> {
  assertLimits(opts);
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new FetchError('timeout', `Download did not finish within ${opts.timeoutMs} ms`)),
    opts.timeoutMs,
  );
  const agents = opts.agents ?? createGuardedAgents(opts, { ca: opts.ca });
  try {
    return await work(controller.signal, agents);
  } catch (err) {
    throw classify(err, controller.signal);
  } finally {
    clearTimeout(timer);
    if (!opts.agents) {
      agents.httpAgent.destroy();
      agents.httpsAgent.destroy();
    }
  }
}

function assertLimits(opts: DownloadOptions): void {
  if (!Number.isFinite(opts.maxBytes) || opts.maxBytes < 0)
    throw new RangeError('maxBytes must be a non-negative number');
  if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0)
    throw new RangeError('timeoutMs must be a positive number');
  if (!Number.isInteger(opts.maxRedirects) || opts.maxRedirects < 0) {
    throw new RangeError('maxRedirects must be a non-negative integer');
  }
}

/**
 * Follows redirects by hand, checking every hop (scheme, credentials, port, every address) before
 * connecting to it, and returns the final 2xx response once its headers pass the checks.
 */
async function openChecked(
  url: string,
  opts: DownloadOptions,
  signal: AbortSignal,
  agents: Agents,
): Promise<OpenResponse> {
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const target = await untilAborted(assertFetchableUrl(current, opts), signal);
    const res = await client.request<Readable>({
      url: target.href,
      method: 'get',
      adapter: 'http',
      responseType: 'stream',
      maxRedirects: 0,
      proxy: false,
      httpAgent: agents.httpAgent,
      httpsAgent: agents.httpsAgent,
      signal,
      validateStatus: () => true,
      maxContentLength: -1,
      maxBodyLength: -1,
      headers: {
        'User-Agent': USER_AGENT,
        Accept: acceptHeader(opts.accept),
        // Raw bytes, so Content-Length is the body size; a server that compresses anyway is still
        // decoded by axios and the limit applies to the decoded bytes.
        'Accept-Encoding': 'identity',
      },
    });
    const body = res.data;
    const status = res.status;

    if (REDIRECT_STATUSES.has(status)) {
      body.destroy();
      const location = headerString(res.headers['location']);
      if (location === null) throw new FetchError('status', `Redirect ${status} without a Location`, { status });
      if (redirects >= opts.maxRedirects) {
        throw new FetchError('status', `More than ${opts.maxRedirects} redirects`, { status });
      }
      current = resolveLocation(location, target);
      continue;
    }
    try {
      if (status < 200 || status > 299) throw new FetchError('status', `HTTP ${status}`, { status });
      const contentType = headerString(res.headers['content-type']);
      if (opts.accept && !isAccepted(contentType, opts.accept)) {
        throw new FetchError('content-type', `Content type ${contentType ?? '(none)'} is not accepted`);
      }
      const declared = Number(headerString(res.headers['content-length']) ?? NaN);
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        throw new FetchError('too-large', `Content-Length ${declared} exceeds ${opts.maxBytes} bytes`);
      }
      return { body, contentType, finalUrl: target.href };
    } catch (err) {
      body.destroy();
      throw err;
    }
  }
}

function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    throw new UnsafeUrlError('invalid-url', 'Redirect to an invalid URL');
  }
}

/** A DNS lookup cannot be cancelled, but the download stops waiting for it when the time is up. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function removePartialFile(out: WriteStream, destPath: string): Promise<void> {
  out.destroy();
  // The file may still be opening; removing it before the descriptor is closed could let the
  // open recreate it afterwards.
  if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
  await fs.rm(destPath, { force: true });
}

/**
 * Our own errors pass through, also when wrapped (axios wraps the connect-time refusal from the
 * guarded lookup); anything after the timer fired is a timeout; local file errors (they carry a
 * path) stay as they are; everything else is a network failure.
 */
function classify(err: unknown, signal: AbortSignal): unknown {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof UnsafeUrlError || e instanceof FetchError) return e;
  }
  if (signal.aborted) return signal.reason;
  if (err instanceof Error && typeof (err as NodeJS.ErrnoException).path === 'string') return err;
  const message = err instanceof Error ? err.message : String(err);
  return new FetchError('network', `Download failed: ${message}`, { cause: err });
}

/** Why the signal aborted: its reason (a DOMException for timeouts, an Error), never a bare value. */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}
