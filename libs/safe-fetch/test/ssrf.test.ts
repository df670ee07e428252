import type { LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import https from 'node:https';
import net from 'node:net';
import { assertFetchableUrl, downloadToBuffer, UnsafeUrlError, type DownloadOptions } from '../src';
import { closeAllServers, downloadOptions, type LocalServer, startHttpsServer, testCertificate } from './harness';

// Refusals with the production policy (no private targets, https only), against local servers
// that record whether anything reached them.

/** The stand-in public host: the injected resolver answers with a real public address for it. */
const PUBLIC_HOST = 'public.test';
const PUBLIC_ADDRESS = '8.8.8.8';

let ca: string;

beforeAll(async () => {
  ca = (await testCertificate()).cert;
});
afterEach(() => {
  jest.restoreAllMocks();
  return closeAllServers();
});

function strict(overrides: Partial<DownloadOptions> = {}): DownloadOptions {
  return downloadOptions(ca, false, overrides);
}

/** public.test -> 8.8.8.8; every other name through the system resolver. */
async function resolveWithPublicTest(host: string): Promise<string[]> {
  if (host === PUBLIC_HOST) return [PUBLIC_ADDRESS];
  return (await dns.lookup(host, { all: true })).map((a) => a.address);
}

async function unsafe(promise: Promise<unknown>): Promise<UnsafeUrlError> {
  const err: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UnsafeUrlError);
  return err as UnsafeUrlError;
}

/** Counts every outgoing TCP connect attempt made by this process from now on. */
function watchConnects(): jest.SpyInstance {
  return jest.spyOn(net.Socket.prototype, 'connect');
}

/**
 * Simulates a network in which PUBLIC_ADDRESS is routed to this machine: after the client's own
 * (guarded) lookup has answered and been checked, connections to PUBLIC_ADDRESS are delivered to
 * 127.0.0.1 instead. The checks still see only the public address; only the packets are rerouted.
 */
function routePublicAddressToLoopback(): void {
  // Called below with the socket as `this` (apply), so it is not unbound.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const realConnect = net.Socket.prototype.connect;
  const reroute = (address: string) => (address === PUBLIC_ADDRESS ? '127.0.0.1' : address);
  jest.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    const [opts] = args;
    if (opts && typeof opts === 'object' && 'lookup' in opts && typeof opts.lookup === 'function') {
      const lookup = opts.lookup as net.LookupFunction;
      const rerouted: net.LookupFunction = (host, lookupOptions, callback) =>
        lookup(host, lookupOptions, (err, address, family) => {
          const delivered =
            typeof address === 'string'
              ? reroute(address)
              : address.map((a: LookupAddress) => ({ address: reroute(a.address), family: a.family }));
          callback(err, delivered, family);
        });
      args[0] = { ...opts, lookup: rerouted };
    }
    // connect() is overloaded; the arguments are passed through untouched apart from `lookup`.
    return Reflect.apply(realConnect, this, args) as net.Socket;
  });
}

function expectUntouched(server: LocalServer): void {
  expect(server.connections()).toBe(0);
  expect(server.requests).toHaveLength(0);
}

describe('with private targets refused', () => {
  it('refuses https://127.0.0.1:port/ before connecting to it', async () => {
    const server = await startHttpsServer((_req, res) => res.end('secret'));
    const connects = watchConnects();
    const err = await unsafe(downloadToBuffer(`https://127.0.0.1:${server.port}/`, strict()));
    expect(err.reason).toBe('private-address');
    expect(connects).not.toHaveBeenCalled();
    expectUntouched(server);
  });

  it('refuses https://localhost:port/ because localhost resolves to loopback', async () => {
    const server = await startHttpsServer((_req, res) => res.end('secret'));
    const err = await unsafe(downloadToBuffer(`https://localhost:${server.port}/`, strict()));
    expect(err.reason).toBe('private-address');
    expectUntouched(server);
    expect((await unsafe(assertFetchableUrl(`https://localhost:${server.port}/`, strict()))).reason).toBe(
      'private-address',
    );
  });

  it.each([
    ['a loopback IP literal', (port: number) => `https://127.0.0.1:${port}/secret`],
    ['a name that resolves to loopback', (port: number) => `https://localhost:${port}/secret`],
  ])('refuses a redirect from a public host to %s, checking the hop before requesting it', async (_what, target) => {
    routePublicAddressToLoopback();
    const server = await startHttpsServer((req, res, self) => {
      if (req.url === '/secret') return res.end('internal data');
      res.writeHead(302, { Location: target(self.port) });
      res.end();
    });
    const outgoing = jest.spyOn(https, 'request');
    const err = await unsafe(
      downloadToBuffer(`https://${PUBLIC_HOST}:${server.port}/start`, strict({ resolve: resolveWithPublicTest })),
    );
    expect(err.reason).toBe('private-address');
    // The first hop really was fetched, so the refusal is the redirect's; and no request for the
    // private hop was even created, so it was the check before the request (not the connect-time
    // guard, which only acts once a request is under way) that refused it.
    expect(server.requests.map((r) => r.path)).toEqual(['/start']);
    expect(outgoing).toHaveBeenCalledTimes(1);
  });

  it('fetches from the public host itself when nothing redirects it elsewhere', async () => {
    // Control for the redirect test above: the simulated public host is reachable and allowed.
    routePublicAddressToLoopback();
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      res.end('png');
    });
    const result = await downloadToBuffer(
      `https://${PUBLIC_HOST}:${server.port}/a.png`,
      strict({ resolve: resolveWithPublicTest }),
    );
    expect(result.body.toString()).toBe('png');
    expect(result.finalUrl).toBe(`https://${PUBLIC_HOST}:${server.port}/a.png`);
  });

  it('refuses at connect time a host whose DNS answer changes to loopback after the check', async () => {
    const server = await startHttpsServer((_req, res) => res.end('secret'));
    const answers = [[PUBLIC_ADDRESS], ['127.0.0.1']];
    const rebinding = jest.fn(async () => answers.shift() ?? ['127.0.0.1']);
    const err = await unsafe(
      downloadToBuffer(`https://${PUBLIC_HOST}:${server.port}/`, strict({ resolve: rebinding })),
    );
    expect(err.reason).toBe('private-address');
    // Once for the check, once when connecting: the second answer was checked too, and refused.
    expect(rebinding).toHaveBeenCalledTimes(2);
    expectUntouched(server);
  });

  it('refuses the cloud metadata address http://169.254.169.254/latest/meta-data/ without connecting', async () => {
    const connects = watchConnects();
    const err = await unsafe(downloadToBuffer('http://169.254.169.254/latest/meta-data/', strict({ allowHttp: true })));
    expect(err.reason).toBe('private-address');
    expect(connects).not.toHaveBeenCalled();
  });

  it('refuses https://user:pass@example.com/ for its credentials without connecting', async () => {
    const connects = watchConnects();
    const err = await unsafe(downloadToBuffer('https://user:pass@example.com/', strict()));
    expect(err.reason).toBe('credentials');
    expect(connects).not.toHaveBeenCalled();
  });

  it('refuses ftp://x for its scheme without connecting', async () => {
    const connects = watchConnects();
    const err = await unsafe(downloadToBuffer('ftp://x', strict()));
    expect(err.reason).toBe('scheme');
    expect(connects).not.toHaveBeenCalled();
  });

  it.each(['http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:7f00:1]/'])(
    'refuses the loopback spelled %s without connecting',
    async (url) => {
      const connects = watchConnects();
      const err = await unsafe(downloadToBuffer(url, strict({ allowHttp: true })));
      expect(err.reason).toBe('private-address');
      expect(connects).not.toHaveBeenCalled();
    },
  );
});
