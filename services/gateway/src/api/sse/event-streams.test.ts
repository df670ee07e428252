import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import request from 'supertest';
import type { Bus } from '@mf/bus';
import type { Job, LogEvent } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import type { AuthContext } from '../../http/auth.middleware';
import { StreamLimits } from '../../core/events/stream-limits';
import { Streams } from './streams';
import { Router } from 'express';
import { requestId } from '@mf/http';
import { listEvents } from '../../core/events/event-log.usecase';
import { authOf } from '../../http/auth.middleware';
import { eventStreams } from './event-streams';

/** The three event routes as the operations router mounts them (their handlers, without the table's scope check). */
function eventsRoutes(bus: Bus, streams: Streams, log: typeof logger) {
  const open = eventStreams(bus, streams, log);
  return Router()
    .get('/events', async (req, res) => {
      res.json(await listEvents(bus, authOf(req), req.query, { correlationId: requestId(req) }));
    })
    .get('/events/stream', (req, res) => open.open(req, res))
    .get('/jobs/:id/events', (req, res) => open.open(req, res, req.params.id));
}

const logger = createLogger('gateway-events-test', 'silent');
const USER = 7;
const READER: AuthContext = { userId: USER, apiKeyId: 70, scopes: ['jobs:read'] };
const MODELS_ONLY: AuthContext = { userId: USER, apiKeyId: 71, scopes: ['models:read'] };
const SCOPE_403 = { error: 'This API key lacks the required scope: jobs:read', required_scope: 'jobs:read' };
const id = (n: number) => `evt_${String(n).padStart(16, '0')}`;

function job(status: Job['status']): Job {
  return {
    job_id: 'job_done',
    status,
    model: 'ImageGen 2',
    type: 'image',
    credits_consumed: 50,
    created_at: '2026-01-01T00:00:00.000Z',
    completed_at: status === 'processing' ? null : '2026-01-01T00:00:05.000Z',
    result: null,
    error: null,
    input: { prompt: 'p', image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 1 },
    source: 'api',
    project_id: null,
    progress: null,
  };
}

/** A finished job whose log is processing (1) then completed (2); jobs' RPCs answered from it. */
function fakeBus(status: Job['status'] = 'completed') {
  const log: LogEvent[] = [
    { id: id(1), type: 'job.processing', created_at: '', job_id: 'job_done', data: job('processing') },
    ...(status === 'processing'
      ? []
      : [{ id: id(2), type: 'job.completed' as const, created_at: '', job_id: 'job_done', data: job(status) }]),
  ];
  const calls: string[] = [];
  const bus = {
    rpc: (_service: unknown, method: string, req: { job_id?: string; after?: string; limit?: number }) => {
      calls.push(method);
      if (method === 'get') {
        if (req.job_id !== 'job_done') return Promise.reject(AppError.notFound('Job not found'));
        return Promise.resolve(job(status));
      }
      if (method === 'events') {
        const after = log.filter((e) => !req.after || e.id > req.after).slice(0, req.limit ?? 50);
        return Promise.resolve({ events: after, next_cursor: null });
      }
      return Promise.reject(new Error(`unexpected ${method}`));
    },
  };
  // Only `rpc` is used by the routes.
  return { bus: bus as unknown as Bus, calls };
}

function appFor(bus: Bus, streams: Streams, auth: AuthContext) {
  const app = createHttpApp({ logger });
  const fakeAuth: RequestHandler = (req, _res, next) => {
    req.auth = auth;
    next();
  };
  app.use(fakeAuth, eventsRoutes(bus, streams, logger));
  finish(app, logger);
  return app;
}

/** Opens a stream on a real socket; resolves once its headers are in, with what comes later. */
async function openStream(app: ReturnType<typeof appFor>, path: string, headers: Record<string, string> = {}) {
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get({ host: '127.0.0.1', port, path, headers }, resolve).on('error', reject),
  );
  let text = '';
  res.on('data', (d: Buffer) => (text += d.toString('utf8')));
  const ended = new Promise<void>((r) => res.on('close', r));
  return {
    status: res.statusCode,
    text: () => text,
    ended,
    close: () => {
      res.destroy();
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('event log routes', () => {
  describe('scopes', () => {
    it.each(['/events', '/events/stream'])('answers %s with the scope 403 to a key without jobs:read', async (path) => {
      const { bus, calls } = fakeBus();
      const streams = new Streams();
      const res = await request(appFor(bus, streams, MODELS_ONLY)).get(path);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(SCOPE_403);
      expect(calls).toEqual([]);
      expect(streams.limits.total).toBe(0);
    });

    it('gives the log to a key with jobs:read', async () => {
      const { bus } = fakeBus();
      const res = await request(appFor(bus, new Streams(), READER)).get('/events');
      expect(res.status).toBe(200);
      expect(res.body.events.map((e: LogEvent) => e.id)).toEqual([id(1), id(2)]);
    });

    it("opens one job's stream for any key of its owner, as GET /jobs/:id reads it", async () => {
      const { bus } = fakeBus();
      const s = await openStream(appFor(bus, new Streams(), MODELS_ONLY), '/jobs/job_done/events');
      await s.ended;
      expect(s.status).toBe(200);
      expect(s.text()).toContain(`id: ${id(2)}`);
      await s.close();
    });
  });

  describe('a job stream resumed at or past its end', () => {
    it.each([id(2), 'evt_9999999999999999'])(
      'is a 204 for a finished job resumed from %s, and takes no stream slot',
      async (lastEventId) => {
        const { bus } = fakeBus();
        const limits = new StreamLimits(1, 1);
        const streams = new Streams({ limits });
        const res = await request(appFor(bus, streams, READER))
          .get('/jobs/job_done/events')
          .set('Last-Event-ID', lastEventId);
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
        expect(limits.total).toBe(0);
        expect(streams.size).toBe(0);
      },
    );

    it('still streams what a finished job has after an earlier id', async () => {
      const { bus } = fakeBus();
      const s = await openStream(appFor(bus, new Streams(), READER), '/jobs/job_done/events', {
        'last-event-id': id(1),
      });
      await s.ended;
      expect(s.status).toBe(200);
      expect(s.text()).toContain(`id: ${id(2)}`);
      await s.close();
    });

    it('opens the stream of a processing job resumed from its latest id (more will come)', async () => {
      const { bus } = fakeBus('processing');
      const streams = new Streams();
      const s = await openStream(appFor(bus, streams, READER), '/jobs/job_done/events', { 'last-event-id': id(1) });
      expect(s.status).toBe(200);
      expect(streams.limits.total).toBe(1);
      await s.close();
    });
  });

  describe('revocation', () => {
    it("ends the open streams of a revoked key, and only that key's", async () => {
      const { bus } = fakeBus('processing');
      const streams = new Streams();
      const other: AuthContext = { ...READER, apiKeyId: 72 };
      const revoked = await openStream(appFor(bus, streams, READER), '/events/stream');
      const kept = await openStream(appFor(bus, streams, other), '/events/stream');
      expect(streams.size).toBe(2);

      expect(streams.closeKey(READER.apiKeyId)).toBe(1);
      await revoked.ended;
      expect(streams.size).toBe(1);
      expect(streams.limits.total).toBe(1);
      await revoked.close();
      await kept.close();
    });
  });
});
