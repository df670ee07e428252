import net from 'node:net';

/**
 * Ports are handed out below Linux's ephemeral range (32768-60999 by default), where the OS picks
 * the local port of every outgoing connection: a port the OS chose with listen(0) and released could
 * be taken by a Postgres or broker connection before the service under test binds it (EADDRINUSE).
 * Each jest worker gets its own slice, so two workers of one run never hand out the same port; a
 * random start and a bind check keep concurrent runs (other checkouts) apart.
 */
const LOW = 20_000;
const SLICE = 1_000;
const SLICES = 12;
const worker = Number(process.env.JEST_WORKER_ID ?? '0') % SLICES;
const sliceStart = LOW + worker * SLICE;
let next = Math.floor(Math.random() * SLICE);

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A loopback port nothing listens on right now, not handed out before by this process: for a server
 * a test starts, or for a connection that must be refused.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < SLICE; tries++) {
    const port = sliceStart + (next++ % SLICE);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${sliceStart}-${sliceStart + SLICE - 1}`);
}
