import express, { Router, type Express } from 'express';
import request from 'supertest';
import { createLogger } from '@mf/logger';
import { createHttpApp, finish } from './app';
import { answerMethodNotAllowed } from './method-not-allowed';

const logger = createLogger('http-test', 'silent');

function appWith(router: Router): Express {
  const app = createHttpApp({ logger });
  app.use('/api', router);
  finish(app, logger);
  return app;
}

describe('answerMethodNotAllowed', () => {
  let app: Express;

  beforeAll(() => {
    const jobs = Router();
    jobs.get('/jobs/:id', (req, res) => void res.json({ id: req.params.id }));
    jobs.delete('/jobs/:id', (_req, res) => void res.json({ deleted: true }));
    const other = Router();
    other.post('/generate', (_req, res) => void res.status(202).json({ ok: true }));
    const prefixed = Router();
    prefixed.get('/inner', (_req, res) => void res.json({ inner: true }));
    const api = Router();
    api.use(jobs);
    api.use(other);
    api.use('/prefixed', prefixed);
    answerMethodNotAllowed(api);
    app = appWith(api);
  });

  it('answers a method no route takes on a known path with 405, naming the allowed ones in Allow', async () => {
    const res = await request(app).post('/api/jobs/job_1');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('DELETE, GET, HEAD');
    expect(res.body).toEqual({ error: 'Method POST not allowed here; allowed: DELETE, GET, HEAD' });
  });

  it('collects the routes of routers mounted at the root', async () => {
    const res = await request(app).get('/api/generate');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });

  it('leaves the methods the routes take alone', async () => {
    expect((await request(app).get('/api/jobs/job_1')).body).toEqual({ id: 'job_1' });
    expect((await request(app).delete('/api/jobs/job_1')).body).toEqual({ deleted: true });
    expect((await request(app).post('/api/generate')).status).toBe(202);
  });

  it('keeps 404 for paths no route knows', async () => {
    const res = await request(app).post('/api/nothing/here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });

  it('skips routers mounted under a prefix (their paths are not the parent router\u2019s)', async () => {
    expect((await request(app).post('/api/inner')).status).toBe(404);
    expect((await request(app).get('/api/prefixed/inner')).body).toEqual({ inner: true });
  });

  it('works on a plain express app router too', () => {
    expect(() => answerMethodNotAllowed(express.Router())).not.toThrow();
  });
});
