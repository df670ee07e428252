import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface TimedReceiver {
  url: string;
  /** Arrival instant (performance.now()) per key, first arrival only. */
  arrivals: Map<string, number>;
  /** Requests received that the key function rejected (wrong event, unparsable body). */
  ignored: () => number;
  /** Resolves when `n` keys have arrived, or rejects after `timeoutMs`. */
  waitFor: (n: number, timeoutMs: number) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * An HTTP endpoint on loopback that answers 200 at once and notes when each request arrived,
 * under the key `keyOf` finds in it (a job id, a sequence number); null ignores the request.
 */
export async function startTimedReceiver(
  keyOf: (headers: http.IncomingHttpHeaders, body: string) => string | null,
): Promise<TimedReceiver> {
  const arrivals = new Map<string, number>();
  let ignored = 0;
  let waiter: { n: number; resolve: () => void } | null = null;
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      let key: string | null = null;
      try {
        key = keyOf(req.headers, Buffer.concat(chunks).toString('utf8'));
      } catch {
        key = null;
      }
      if (key === null) ignored += 1;
      else if (!arrivals.has(key)) arrivals.set(key, at);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (waiter && arrivals.size >= waiter.n) waiter.resolve();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    ignored: () => ignored,
    waitFor: (n, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        if (arrivals.size >= n) return resolve();
        const timer = setTimeout(() => {
          waiter = null;
          reject(new Error(`only ${arrivals.size} of ${n} arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiter = {
          n,
          resolve: () => {
            clearTimeout(timer);
            waiter = null;
            resolve();
          },
        };
      }),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
