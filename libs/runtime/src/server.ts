import type { Express } from 'express';
import type { Server } from 'node:http';
import { answerClientError } from '@mf/http';

export interface ListenOptions {
  port: number;
  host?: string;
  /** Longest request this server allows (editor turns and exports last minutes). */
  requestTimeoutMs?: number;
}

export function listen(app: Express, { port, host = '0.0.0.0', requestTimeoutMs = 0 }: ListenOptions): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => {
      if (err) reject(err);
      else resolve(server);
    });
    server.requestTimeout = requestTimeoutMs;
    // Longer than a typical load balancer idle timeout, so the proxy closes idle sockets first.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    // Requests Node refuses before express sees them (headers over 16 KB: 431) get a JSON error body too.
    server.on('clientError', answerClientError);
    server.on('error', reject);
  });
}

/** Stops accepting connections and waits for in-flight requests; idle keep-alive sockets close now. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
