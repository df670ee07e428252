import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * A webhook receiver on loopback for the webhooks bench: answers each request after `answerAfterMs`
 * (or never, 'hang'), notes the first arrival of each job id (performance.now()), and counts the
 * requests open at once, in all and per path (one path per endpoint).
 */
export interface BenchReceiver {
  url: (path: string) => string;
  /** First arrival per job id. */
  arrivals: Map<string, number>;
  /** When the answer to each job id's first request was sent. */
  answered: Map<string, number>;
  /** Most requests open at once, all paths together, and on any one path. */
  peakOpen: () => { all: number; perPath: number };
  /** Resolves once `n` job ids have been answered (or arrived, for a receiver that hangs). */
  waitFor: (n: number, timeoutMs: number) => Promise<boolean>;
  close: () => Promise<void>;
}

export async function startBenchReceiver(answerAfterMs: number | 'hang'): Promise<BenchReceiver> {
  const arrivals = new Map<string, number>();
  const answered = new Map<string, number>();
  const openByPath = new Map<string, number>();
  let open = 0;
  let peakAll = 0;
  let peakPath = 0;
  const waiters = new Set<() => void>();
  const settled = () => (answerAfterMs === 'hang' ? arrivals.size : answered.size);
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    const path = req.url ?? '';
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      let jobId: string | null = null;
      try {
        jobId = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { job_id: string }).job_id);
      } catch {
        jobId = null;
      }
      if (jobId && !arrivals.has(jobId)) arrivals.set(jobId, at);
      open++;
      const onPath = (openByPath.get(path) ?? 0) + 1;
      openByPath.set(path, onPath);
      peakAll = Math.max(peakAll, open);
      peakPath = Math.max(peakPath, onPath);
      const done = () => {
        open--;
        openByPath.set(path, (openByPath.get(path) ?? 1) - 1);
      };
      res.once('close', done);
      for (const wake of waiters) wake();
      if (answerAfterMs === 'hang') return;
      setTimeout(() => {
        if (jobId && !answered.has(jobId)) answered.set(jobId, performance.now());
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        for (const wake of waiters) wake();
      }, answerAfterMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    arrivals,
    answered,
    peakOpen: () => ({ all: peakAll, perPath: peakPath }),
    waitFor: (n, timeoutMs) =>
      new Promise<boolean>((resolve) => {
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(ok);
        };
        const check = () => {
          if (settled() >= n) finish(true);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
