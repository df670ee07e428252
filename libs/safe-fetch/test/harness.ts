import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import type { DownloadOptions } from '../src';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface LocalServer {
  readonly port: number;
  /** https://127.0.0.1:port or http://127.0.0.1:port */
  readonly origin: string;
  /** Every request that reached the handler, in order. */
  readonly requests: RecordedRequest[];
  /** TCP connections accepted, including ones that never sent a request. */
  connections(): number;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, server: LocalServer) => void;

export interface Certificate {
  cert: string;
  key: string;
}

let certificate: Promise<Certificate> | undefined;

/**
 * One self-signed certificate for the test file, valid for 127.0.0.1, localhost and public.test
 * (the stand-in public host name). The client trusts it only through DownloadOptions.ca.
 */
export function testCertificate(): Promise<Certificate> {
  certificate ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: 'public.test' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  }).then((pems) => ({ cert: pems.cert, key: pems.private }));
  return certificate;
}

const running = new Set<http.Server>();

export async function startHttpsServer(handler: Handler): Promise<LocalServer> {
  const { cert, key } = await testCertificate();
  return listen(https.createServer({ cert, key }), 'https', handler);
}

export async function startHttpServer(handler: Handler): Promise<LocalServer> {
  return listen(http.createServer(), 'http', handler);
}

/** Stops every server started by this file, cutting connections that are still hanging. */
export async function closeAllServers(): Promise<void> {
  const servers = [...running];
  running.clear();
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
}

async function listen(server: http.Server, scheme: 'http' | 'https', handler: Handler): Promise<LocalServer> {
  let connections = 0;
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.add(server);
  const { port } = server.address() as AddressInfo;
  const local: LocalServer = {
    port,
    origin: `${scheme}://127.0.0.1:${port}`,
    requests: [],
    connections: () => connections,
  };
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    local.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    handler(req, res, local);
  });
  return local;
}

/** Writes chunks for as long as the client keeps reading; resolves once the client has gone away. */
export function streamForever(res: http.ServerResponse, contentType: string): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  res.writeHead(200, { 'Content-Type': contentType });
  const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
  const pump = () => {
    while (!res.destroyed && res.write(chunk)) {
      /* keep filling until the socket buffer is full */
    }
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
  return closed;
}

/** The download options the tests start from (1 MiB, 5 s, 3 redirects, the test CA), private addresses as said. */
export function downloadOptions(
  ca: string,
  allowPrivate: boolean,
  overrides: Partial<DownloadOptions> = {},
): DownloadOptions {
  return { allowPrivate, allowHttp: false, maxBytes: 1024 * 1024, timeoutMs: 5000, maxRedirects: 3, ca, ...overrides };
}
