import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router, type RequestHandler } from 'express';
import type { Bus } from '@mf/bus';
import type { Job } from '@mf/contracts';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import type { AuthContext } from '../../http/auth.middleware';
import { eventStreams } from './event-streams';
import { Streams } from './streams';

// One completion reaches every open stream of its user on this replica, and no other user's.
const logger = createLogger('gateway-fan-out-test', 'silent');
const N = 50;
const OWNER = 7;
const OTHER = 8;

const completed: Job = {
  job_id: 'job_fanout',
  status: 'completed',
  model: 'ImageGen 2',
  type: 'image',
  credits_consumed: 50,
  created_at: '2026-01-01T00:00:00.000Z',
  completed_at: '2026-01-01T00:00:05.000Z',
  result: { images: ['https://media.test/a.png'] },
  error: null,
  input: { prompt: 'p', image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 1 },
  source: 'api',
  project_id: null,
  progress: null,
};

/** The log is empty (a stream opened without Last-Event-ID reads nothing from it). */
const bus = { rpc: () => Promise.resolve({ events: [], next_cursor: null }) } as unknown as Bus;

interface OpenStream {
  text: () => string;
}

describe('event stream fan-out', () => {
  const streams = new Streams({ perKey: N, perUser: N });
  let server: http.Server;
  let port = 0;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const responses: http.IncomingMessage[] = [];

  beforeAll(async () => {
    const app = createHttpApp({ logger });
    // Who opens a stream comes in a header here (the real auth middleware is not under test).
    const fakeAuth: RequestHandler = (req, _res, next) => {
      const userId = Number(req.header('x-test-user'));
      req.auth = { userId, apiKeyId: userId * 10, scopes: ['jobs:read'] } satisfies AuthContext;
      next();
    };
    const open = eventStreams(bus, streams, logger);
    app.use(
      fakeAuth,
      Router().get('/events/stream', (req, res) => open.open(req, res)),
    );
    finish(app, logger);
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const res of responses) res.destroy();
    agent.destroy();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const openFor = async (userId: number): Promise<OpenStream> => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get(
          { host: '127.0.0.1', port, path: '/events/stream', agent, headers: { 'x-test-user': String(userId) } },
          resolve,
        )
        .on('error', reject),
    );
    expect(res.statusCode).toBe(200);
    responses.push(res);
    let text = '';
    res.on('data', (d: Buffer) => (text += d.toString('utf8')));
    return { text: () => text };
  };

  const eventually = async (check: () => boolean): Promise<boolean> => {
    for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    return check();
  };

  it(`sends one completion to every one of ${N} open streams of its user, once each, and not to another user's stream`, async () => {
    const own = await Promise.all(Array.from({ length: N }, () => openFor(OWNER)));
    const other = await openFor(OTHER);
    expect(await eventually(() => streams.hub.size === N + 1)).toBe(true);

    streams.hub.publish({
      id: 'evt_0000000000000042',
      type: 'job.completed',
      jobId: completed.job_id,
      userId: OWNER,
      data: completed,
    });

    const has = (s: OpenStream) => s.text().includes('id: evt_0000000000000042');
    expect(await eventually(() => own.every(has))).toBe(true);
    for (const s of own) {
      expect(s.text().split('id: evt_0000000000000042').length - 1).toBe(1);
      expect(s.text()).toContain('event: job.completed');
      expect(s.text()).toContain('"job_id":"job_fanout"');
    }
    // The other user's stream is open and reads on (a later event of its own arrives) but never saw it.
    streams.hub.publish({
      id: 'evt_0000000000000043',
      type: 'job.completed',
      jobId: 'job_theirs',
      userId: OTHER,
      data: { ...completed, job_id: 'job_theirs' },
    });
    expect(await eventually(() => other.text().includes('id: evt_0000000000000043'))).toBe(true);
    expect(other.text()).not.toContain('evt_0000000000000042');
    expect(own.some((s) => s.text().includes('evt_0000000000000043'))).toBe(false);
  });
});
