import express, { Router } from 'express';
import request from 'supertest';
import { onFirstRequest } from './on-first-request';

function appWith(build: () => Router, handles?: (req: express.Request) => boolean) {
  const app = express();
  app.use(onFirstRequest(build, handles));
  app.use((_req, res) => res.status(404).send('fallthrough'));
  app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
    res.status(500).send(err.message),
  );
  return app;
}

function pingRouter(): Router {
  const router = Router();
  router.get('/oauth/ping', (_req, res) => res.send('pong'));
  return router;
}

describe('onFirstRequest', () => {
  it('builds nothing until a request comes, then builds once however many arrive together', async () => {
    const build = jest.fn(pingRouter);
    const app = appWith(build);
    expect(build).not.toHaveBeenCalled();
    const answers = await Promise.all(Array.from({ length: 5 }, () => request(app).get('/oauth/ping')));
    expect(answers.map((a) => a.text)).toEqual(['pong', 'pong', 'pong', 'pong', 'pong']);
    expect(build).toHaveBeenCalledTimes(1);
    expect((await request(app).get('/oauth/ping')).text).toBe('pong');
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('lets requests it does not handle through without building', async () => {
    const build = jest.fn(pingRouter);
    const app = appWith(build, (req) => /oauth/i.test(req.path));
    const res = await request(app).get('/dashboard/');
    expect(res.status).toBe(404);
    expect(res.text).toBe('fallthrough');
    expect(build).not.toHaveBeenCalled();
  });

  it('passes what the built router does not answer on, as the router itself would', async () => {
    const app = appWith(pingRouter);
    const res = await request(app).get('/oauth/other');
    expect(res.status).toBe(404);
    expect(res.text).toBe('fallthrough');
  });

  it('answers a build that fails through the error handler', async () => {
    const app = appWith(() => {
      throw new Error('module failed to load');
    });
    const res = await request(app).get('/oauth/ping');
    expect(res.status).toBe(500);
    expect(res.text).toBe('module failed to load');
  });
});
