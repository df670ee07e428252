import { existsSync, promises as fs, writeFileSync } from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import axios from 'axios';
import {
  downloadToBuffer,
  downloadToFile,
  FetchError,
  keepAliveDownloadAgents,
  UnsafeUrlError,
  type DownloadOptions,
} from '../src';
import {
  closeAllServers,
  downloadOptions,
  startHttpServer,
  startHttpsServer,
  streamForever,
  testCertificate,
} from './harness';

// Downloads from local test servers: private addresses are allowed here; the refusals are in ssrf.test.ts.
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2000, 7)]);

let ca: string;
let tmp: string;

beforeAll(async () => {
  ca = (await testCertificate()).cert;
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'safe-fetch-'));
});
afterEach(closeAllServers);
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

function options(overrides: Partial<DownloadOptions> = {}): DownloadOptions {
  return downloadOptions(ca, true, overrides);
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the download to fail');
    },
    (err: unknown) => err,
  );
}

async function fetchError(promise: Promise<unknown>): Promise<FetchError> {
  const err = await failure(promise);
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

function servePng(res: http.ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) });
  res.end(PNG);
}

describe('downloadToBuffer', () => {
  it('returns the body, content type and final URL of an https download', async () => {
    const server = await startHttpsServer((_req, res) => servePng(res));
    const result = await downloadToBuffer(`${server.origin}/a.png`, options({ accept: ['image/'] }));
    expect(result.body.equals(PNG)).toBe(true);
    expect(result.contentType).toBe('image/png');
    expect(result.finalUrl).toBe(`${server.origin}/a.png`);
  });

  it('sends its own User-Agent and no credentials or cookies, even when axios defaults carry some', async () => {
    const server = await startHttpsServer((_req, res) => servePng(res));
    const common = axios.defaults.headers.common;
    common['Authorization'] = 'Bearer internal-service-token';
    common['Cookie'] = 'session=secret';
    try {
      await downloadToBuffer(`${server.origin}/a.png`, options());
    } finally {
      delete common['Authorization'];
      delete common['Cookie'];
    }
    const { headers } = server.requests[0];
    expect(headers['user-agent']).toBe('mediaforge-fetch/1.0');
    expect(headers.authorization).toBeUndefined();
    expect(headers.cookie).toBeUndefined();
    expect(headers['proxy-authorization']).toBeUndefined();
  });

  it('stops reading a body that grows past maxBytes and drops the connection', async () => {
    let serverSawClose: Promise<void> | undefined;
    const server = await startHttpsServer((_req, res) => {
      serverSawClose = streamForever(res, 'image/png');
    });
    const err = await fetchError(downloadToBuffer(`${server.origin}/forever`, options({ maxBytes: 100_000 })));
    expect(err.kind).toBe('too-large');
    expect(serverSawClose).toBeDefined();
    await serverSawClose;
  });

  it('refuses a declared Content-Length above maxBytes without waiting for the body', async () => {
    // The body never comes: reading it would end in a timeout, not in 'too-large'.
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(50 * 1024 * 1024) });
      res.flushHeaders();
    });
    const err = await fetchError(
      downloadToBuffer(`${server.origin}/huge`, options({ maxBytes: 1024, timeoutMs: 20_000 })),
    );
    expect(err.kind).toBe('too-large');
  });

  it('gives up with a timeout when the server never answers', async () => {
    const server = await startHttpsServer(() => {
      /* never respond */
    });
    const err = await fetchError(downloadToBuffer(`${server.origin}/hang`, options({ timeoutMs: 300 })));
    expect(err.kind).toBe('timeout');
  });

  it('times out a body that trickles in, although data keeps arriving', async () => {
    // An idle timeout would never fire here: the time limit covers the whole download.
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      const timer = setInterval(() => res.write('x'), 50);
      res.once('close', () => clearInterval(timer));
    });
    const err = await fetchError(downloadToBuffer(`${server.origin}/trickle`, options({ timeoutMs: 600 })));
    expect(err.kind).toBe('timeout');
  });

  it('reports a 404 as a status error carrying the status', async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
    });
    const err = await fetchError(downloadToBuffer(`${server.origin}/missing.png`, options()));
    expect(err.kind).toBe('status');
    expect(err.status).toBe(404);
  });

  it('refuses a content type outside the accepted prefixes', async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<html></html>');
    });
    const err = await fetchError(downloadToBuffer(`${server.origin}/page`, options({ accept: ['image/'] })));
    expect(err.kind).toBe('content-type');
  });

  it('refuses a response without a content type when types are restricted', async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200);
      res.end(PNG);
    });
    const err = await fetchError(downloadToBuffer(`${server.origin}/untyped`, options({ accept: ['image/'] })));
    expect(err.kind).toBe('content-type');
  });
});

describe('redirects', () => {
  // /hops/N answers with a redirect to /hops/N-1 (alternating status codes and URL forms); /hops/0 is the image.
  const STATUSES = [302, 301, 307, 308, 303];
  async function redirectingServer() {
    return startHttpsServer((req, res, self) => {
      const n = Number(/^\/hops\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
      if (n === 0) return servePng(res);
      if (!Number.isInteger(n)) {
        res.writeHead(404);
        return res.end();
      }
      const next = n % 2 === 0 ? `${self.origin}/hops/${n - 1}` : `/hops/${n - 1}`;
      res.writeHead(STATUSES[n % STATUSES.length], { Location: next });
      res.end();
    });
  }

  it('follows a chain of redirects up to maxRedirects and reports the final URL', async () => {
    const server = await redirectingServer();
    const result = await downloadToBuffer(`${server.origin}/hops/3`, options({ maxRedirects: 3 }));
    expect(result.body.equals(PNG)).toBe(true);
    expect(result.finalUrl).toBe(`${server.origin}/hops/0`);
    expect(server.requests.map((r) => r.path)).toEqual(['/hops/3', '/hops/2', '/hops/1', '/hops/0']);
  });

  it('refuses to follow more than maxRedirects', async () => {
    const server = await redirectingServer();
    const err = await fetchError(downloadToBuffer(`${server.origin}/hops/3`, options({ maxRedirects: 2 })));
    expect(err.kind).toBe('status');
    expect(server.requests.map((r) => r.path)).toEqual(['/hops/3', '/hops/2', '/hops/1']);
  });

  it('refuses a redirect from https to http when http is not allowed', async () => {
    const plain = await startHttpServer((_req, res) => servePng(res));
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(302, { Location: `${plain.origin}/a.png` });
      res.end();
    });
    const err = await failure(downloadToBuffer(`${server.origin}/downgrade`, options({ allowHttp: false })));
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect((err as UnsafeUrlError).reason).toBe('scheme');
    expect(plain.connections()).toBe(0);
  });

  it('follows a redirect to http when http is allowed', async () => {
    const plain = await startHttpServer((_req, res) => servePng(res));
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(302, { Location: `${plain.origin}/a.png` });
      res.end();
    });
    const result = await downloadToBuffer(`${server.origin}/downgrade`, options({ allowHttp: true }));
    expect(result.finalUrl).toBe(`${plain.origin}/a.png`);
    expect(result.body.equals(PNG)).toBe(true);
  });
});

describe('downloadToFile', () => {
  it('reuses one connection across downloads given keep-alive agents, and a connection of its own each without', async () => {
    const server = await startHttpsServer((_req, res) => servePng(res));
    const agents = keepAliveDownloadAgents({ allowPrivate: true, allowHttp: false }, ca);
    try {
      for (const name of ['k1.png', 'k2.png', 'k3.png'])
        await downloadToFile(`${server.origin}/${name}`, path.join(tmp, name), options({ agents }));
      expect(server.connections()).toBe(1);
      expect((await fs.readFile(path.join(tmp, 'k3.png'))).equals(PNG)).toBe(true);
    } finally {
      agents.httpsAgent.destroy();
      agents.httpAgent.destroy();
    }
    await downloadToFile(`${server.origin}/own.png`, path.join(tmp, 'own.png'), options());
    await downloadToFile(`${server.origin}/own.png`, path.join(tmp, 'own.png'), options());
    expect(server.connections()).toBe(3);
  });

  it('writes the body to the file and reports its size and content type', async () => {
    const server = await startHttpsServer((_req, res) => servePng(res));
    const dest = path.join(tmp, 'ok.png');
    const result = await downloadToFile(`${server.origin}/a.png`, dest, options({ accept: ['image/png'] }));
    expect(result).toEqual({ bytes: PNG.length, contentType: 'image/png', finalUrl: `${server.origin}/a.png` });
    expect((await fs.readFile(dest)).equals(PNG)).toBe(true);
  });

  it('removes the partial file when the body grows past maxBytes', async () => {
    let serverSawClose: Promise<void> | undefined;
    const server = await startHttpsServer((_req, res) => {
      serverSawClose = streamForever(res, 'image/png');
    });
    const dest = path.join(tmp, 'too-large.png');
    const err = await fetchError(downloadToFile(`${server.origin}/forever`, dest, options({ maxBytes: 300_000 })));
    expect(err.kind).toBe('too-large');
    expect(existsSync(dest)).toBe(false);
    expect(serverSawClose).toBeDefined();
    await serverSawClose;
  });

  it('removes the partial file when the time runs out mid-body', async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      res.write(PNG); // then stall
    });
    const dest = path.join(tmp, 'stalled.png');
    const err = await fetchError(downloadToFile(`${server.origin}/stall`, dest, options({ timeoutMs: 500 })));
    expect(err.kind).toBe('timeout');
    expect(existsSync(dest)).toBe(false);
  });

  it('leaves an existing file alone when the request fails before any body arrives', async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    const dest = path.join(tmp, 'existing.png');
    writeFileSync(dest, 'previous');
    const err = await fetchError(downloadToFile(`${server.origin}/error`, dest, options()));
    expect(err.status).toBe(500);
    expect(await fs.readFile(dest, 'utf8')).toBe('previous');
  });
});
