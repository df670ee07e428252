import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  receivedAt: number;
  /** The status the receiver answered with ('hang': it never answered). */
  answeredWith?: number | 'hang';
}

/** A fleet's settings that let it deliver to these receivers: plain http on loopback (production refuses both). */
export const LOOPBACK_DELIVERY: Readonly<Record<string, string>> = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
};

/**
 * A customer's webhook endpoint on loopback. `answer` decides the status of each request (by its
 * order), so tests can make it fail, throttle or hang.
 */
export async function startReceiver(
  answer: (n: number, req: ReceivedWebhook) => number | 'hang' = () => 200,
): Promise<{ url: string; received: ReceivedWebhook[]; close: () => Promise<void> }> {
  const received: ReceivedWebhook[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hook: ReceivedWebhook = {
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      received.push(hook);
      const status = answer(received.length, hook);
      hook.answeredWith = status;
      if (status === 'hang') return; // never answers
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * Verifies X-Service-Signature as the contract states it, written from the contract alone (it
 * imports nothing of the dispatcher): v1 = hex HMAC-SHA256(secret, "<t>.<raw body>").
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  toleranceSec = 300,
  now = Date.now(),
): boolean {
  if (!header) return false;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > toleranceSec || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
