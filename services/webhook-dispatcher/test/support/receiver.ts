import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Epoch ms when the request arrived (headers and body read). */
  at: number;
}

/** How the receiver answers its n-th request (1-based): a status, or never. */
export type Answer = number | 'hang';

/** A customer's webhook endpoint on 127.0.0.1 that records every request and answers as scripted. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  answer: (req: ReceivedRequest, n: number) => Answer = () => 200;
  /** The body of every answer. */
  answerBody = 'ok';
  /** Extra wait before answering, ms (to widen races). */
  answerDelayMs = 0;

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<Receiver> {
    const server = http.createServer();
    const receiver = new Receiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        receiver.requests.push(received);
        const answer = receiver.answer(received, receiver.requests.length);
        if (answer === 'hang') return;
        setTimeout(
          () => res.writeHead(answer, { 'content-type': 'text/plain' }).end(receiver.answerBody),
          receiver.answerDelayMs,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Requests carrying this event id. */
  forEvent(eventId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['x-service-event-id'] === eventId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
