import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createRegistry, mountHealth } from './health';
import { probeHealth } from './probe';

let ready = true;
let server: http.Server;
let port: number;
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  const app = express();
  mountHealth(app, createRegistry('probe-test'), {
    startup: () => {
      if (!ready) throw new Error('starting');
    },
  });
  // A service that accepts the connection but never answers.
  app.get('/hangs', (_req, res) => {
    held.push(res);
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const res of held) res.end();
  await new Promise((resolve) => server.close(resolve));
});

describe('probeHealth (the containers health probe)', () => {
  it('passes when /readyz answers 200 and fails while it answers 503', async () => {
    ready = true;
    expect(await probeHealth(port, '/readyz', 2000)).toEqual({ ok: true, seen: 'GET /readyz: 200' });
    ready = false;
    expect(await probeHealth(port, '/readyz', 2000)).toEqual({ ok: false, seen: 'GET /readyz: 503' });
    expect(await probeHealth(port, '/healthz', 2000)).toEqual({ ok: true, seen: 'GET /healthz: 200' });
    ready = true;
  });

  it('fails on a 404 and on a closed port', async () => {
    expect(await probeHealth(port, '/no-such-path', 2000)).toEqual({ ok: false, seen: 'GET /no-such-path: 404' });
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await probeHealth(closedPort, '/healthz', 2000)).toEqual({
      ok: false,
      seen: `GET /healthz on port ${closedPort}: connect ECONNREFUSED 127.0.0.1:${closedPort}`,
    });
  });

  it('gives up on a service that never answers once its time limit passes', async () => {
    const before = held.length;
    expect(await probeHealth(port, '/hangs', 200)).toEqual({
      ok: false,
      seen: `GET /hangs on port ${port}: no answer within 200 ms`,
    });
    expect(held.length).toBe(before + 1);
  });
});
