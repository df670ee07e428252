import express from 'express';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { closeServer, listen } from './server';

/** Sends `head` at once, then one byte of `body` every `everyMs`; resolves what the server wrote and when it closed. */
function trickle(
  port: number,
  head: string,
  body: string,
  everyMs: number,
): Promise<{ answer: string; bytesSent: number }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    socket.write(head);
    const timer = setInterval(() => {
      if (sent < body.length && socket.writable) socket.write(body[sent++]);
    }, everyMs);
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, bytesSent: sent });
    });
  });
}

describe('the HTTP server every service listens with', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const app = express();
    app.post('/echo', express.json({ type: () => true }), (req, res) => res.json({ got: req.body }));
    // Answers a fully read request long after the request timeout: the timeout covers reading only.
    app.post(
      '/slow-answer',
      express.json({ type: () => true }),
      (_req, res) => void setTimeout(() => res.json({ ok: true }), 1500),
    );
    server = await listen(app, { port: 0, host: '127.0.0.1', requestTimeoutMs: 600, headersTimeoutMs: 300 });
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await closeServer(server);
  });

  it('answers 408 with a JSON error body and closes the socket when the body is not complete in time', async () => {
    const { answer, bytesSent } = await trickle(
      port,
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n',
      '{"a":"' + 'x'.repeat(100),
      100,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer).toMatch(/Content-Type: application\/json/);
    expect(answer.split('\r\n\r\n')[1]).toBe(JSON.stringify({ error: 'Request timeout' }));
    expect(bytesSent).toBeLessThan(100);
  });

  it('closes a connection whose headers do not arrive in time', async () => {
    const { answer, bytesSent } = await trickle(
      port,
      'POST /echo HTTP/1.1\r\n',
      'Host: x\r\nX-Slow: ' + 'y'.repeat(200),
      50,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(bytesSent).toBeLessThan(200);
  });

  it('lets a quickly sent request take longer than the request timeout to be answered', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/slow-answer`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('keeps an idle keep-alive connection usable past the headers timeout', async () => {
    const first = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', body: '{"n":1}' });
    expect(await first.json()).toEqual({ got: { n: 1 } });
    await new Promise((r) => setTimeout(r, 800));
    const second = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', body: '{"n":2}' });
    expect(await second.json()).toEqual({ got: { n: 2 } });
  });
});
