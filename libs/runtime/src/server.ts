import type { Express } from 'express';
import http, { type Server } from 'node:http';
import { answerClientErrors } from '@mf/http';

export interface ListenOptions {
  port: number;
  host?: string;
  /**
   * Longest the client may take to send a whole request (headers and body), ms. Node stops this
   * clock once the request is read, so a handler that answers after minutes (an editor turn, an
   * export) is unaffected; only slow senders are cut off (408).
   */
  requestTimeoutMs: number;
  /** Longest the client may take to send the headers, ms (no more than requestTimeoutMs). */
  headersTimeoutMs: number;
}

/** Idle keep-alive sockets live longer than a typical load balancer's idle timeout (60 s), so the proxy closes first. */
const KEEP_ALIVE_MS = 65_000;

export function listen(
  app: Express,
  { port, host = '0.0.0.0', requestTimeoutMs, headersTimeoutMs }: ListenOptions,
): Promise<Server> {
  const headersTimeout = Math.min(headersTimeoutMs, requestTimeoutMs);
  const server = http.createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout,
      keepAliveTimeout: KEEP_ALIVE_MS,
      // Node checks the two timeouts on this period (default 30 s, which would let a slow sender
      // hold a socket for up to 30 s past its limit).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    app,
  );
  // Requests Node refuses before express sees them (headers over 16 KB: 431; a request not read
  // in time: 408) get a JSON error body too.
  answerClientErrors(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Stops accepting connections and waits for in-flight requests; idle keep-alive sockets close now. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
