import request from 'supertest';
import { AppError } from '@mf/errors';
import { createLogger } from '@mf/logger';
import { createHttpApp, finish } from './app';

/** The access log line is written once the response has closed: wait for it rather than race it. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setImmediate(r));
}

function setup() {
  const logger = createLogger('access-log-test', 'silent');
  const info = jest.spyOn(logger, 'info');
  const error = jest.spyOn(logger, 'error');
  const app = createHttpApp({ logger });
  app.get('/api/v1/jobs/:id', (req, res) => {
    res.json({ bound: req.log.bindings() });
  });
  app.get('/boom', () => {
    throw new AppError('unavailable', { error: 'Service unavailable' });
  });
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  finish(app, logger);
  return { app, info, error };
}

describe('the access log', () => {
  it('writes one "request completed" line per request with its id, method, URL as received, status and time', async () => {
    const { app, info } = setup();
    const res = await request(app).get('/api/v1/jobs/job_1?x=1').set('X-Request-Id', 'req-42');
    await until(() => info.mock.calls.length > 0);
    expect(res.headers['x-request-id']).toBe('req-42');
    expect(info.mock.calls).toEqual([
      [
        {
          req: { id: 'req-42', method: 'GET', url: '/api/v1/jobs/job_1?x=1' },
          res: { statusCode: 200 },
          responseTime: expect.any(Number),
        },
        'request completed',
      ],
    ]);
  });

  it('logs a 5xx answer at error as "request errored"', async () => {
    const { app, info, error } = setup();
    const res = await request(app).get('/boom');
    await until(() => error.mock.calls.some(([, msg]) => msg === 'request errored'));
    const line = error.mock.calls.find(([, msg]) => msg === 'request errored');
    expect(line?.[0]).toMatchObject({
      req: { id: res.headers['x-request-id'], method: 'GET', url: '/boom' },
      res: { statusCode: 503 },
      err: expect.any(Error),
    });
    expect(info).not.toHaveBeenCalled();
  });

  it('leaves health checks out', async () => {
    const { app, info } = setup();
    await request(app).get('/healthz');
    await request(app).get('/api/v1/jobs/job_2');
    await until(() => info.mock.calls.length > 0);
    expect(info.mock.calls.map(([line]) => (line as { req: { url: string } }).req.url)).toEqual(['/api/v1/jobs/job_2']);
  });

  it("gives handlers a req.log bound to the request's id, method and URL", async () => {
    const { app } = setup();
    const res = await request(app).get('/api/v1/jobs/job_3').set('X-Request-Id', 'req-7');
    expect(res.body.bound).toMatchObject({ req: { id: 'req-7', method: 'GET', url: '/api/v1/jobs/job_3' } });
  });
});
