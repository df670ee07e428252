import http from 'node:http';
import net from 'node:net';
import { assertResponseMatches } from './openapi-validator';

/**
 * HTTP for hostile requests, where fetch refuses: bodies on GET and DELETE, raw bytes that are not
 * UTF-8, paths sent exactly as written ("../" is not normalised away), and raw sockets for bytes
 * no client library will put in a request line or header.
 */

export interface RawResponse {
  status: number;
  headers: Headers;
  /** Header lines exactly as received (name, value), to look for injected ones. */
  rawHeaders: Array<[string, string]>;
  text: string;
  /** The JSON body, or the text when it is not JSON. */
  // Bodies are arbitrary JSON that the tests assert field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface SendOptions {
  key?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Check the answer against the OpenAPI document (default: for /api/v1 paths, as api() does). */
  validate?: boolean;
  /** Send the body chunked, without a Content-Length (the size is known only at its end). */
  chunked?: boolean;
}

function parseBody(text: string, contentType: string | null): unknown {
  if (/text\/event-stream/.test(contentType ?? '')) {
    // One MCP answer as server-sent events: the JSON-RPC message is the last data line.
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .pop();
    return data ? JSON.parse(data.slice(6)) : text;
  }
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

/** One request with node:http: any method with any body, the path sent as given. */
export function send(baseUrl: string, method: string, path: string, opts: SendOptions = {}): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const headers: Record<string, string | number> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    if (!opts.chunked) headers['content-length'] = Buffer.byteLength(opts.body);
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const h = new Headers();
        const rawHeaders: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          rawHeaders.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
          h.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
        }
        const body = parseBody(text, h.get('content-type'));
        const status = res.statusCode ?? 0;
        if (opts.validate ?? path.startsWith('/api/v1/')) assertResponseMatches(method, path, status, h, body);
        resolve({ status, headers: h, rawHeaders, text, body });
      });
    });
    // A server may answer (413) and close before a huge body is written: the answer still counts.
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    );
    if (opts.body !== undefined && opts.chunked) {
      // In 64 KB pieces, so the server sees a stream rather than one write.
      for (let i = 0; i < opts.body.length; i += 65_536) req.write(opts.body.slice(i, i + 65_536));
    } else if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Raw bytes over a socket; resolves the status, the header lines and the body of the answer. */
export function rawRequest(
  baseUrl: string,
  bytes: string | Buffer,
): Promise<{ status: number; head: string; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split === -1 ? text : text.slice(0, split);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        head,
        body: split === -1 ? '' : text.slice(split + 4),
      });
    });
  });
}

/**
 * What a refusal must look like: the status, a JSON body of the contract's shape
 * ({"error": "<message>"}, nothing else but documented extras) and, when given, the message.
 * Returned as one value so a table-driven test shows the case that failed.
 */
export function refusal(res: RawResponse): { status: number; json: boolean; error: unknown } {
  return {
    status: res.status,
    json: /^application\/json/.test(res.headers.get('content-type') ?? ''),
    error: (res.body as { error?: unknown } | null)?.error,
  };
}

/** The refusal expected: a 4xx status, a JSON body, and the message (or any string). */
export function refused(status: number, message?: string | RegExp): { status: number; json: boolean; error: unknown } {
  return {
    status,
    json: true,
    error:
      message === undefined
        ? expect.any(String)
        : typeof message === 'string'
          ? message
          : expect.stringMatching(message),
  };
}

/**
 * Header lines of the answer the request managed to write: any named X-Injected, any value with a
 * raw CR or LF. (An encoded copy inside a URL, `%0D%0AX-Injected`, is data, not a header.)
 */
export function injectedHeaders(res: RawResponse): Array<[string, string]> {
  return res.rawHeaders.filter(([name, value]) => /injected/i.test(name) || /[\r\n]/.test(value));
}
