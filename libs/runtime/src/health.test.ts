import express, { type Express } from 'express';
import request from 'supertest';
import { createRegistry, mountHealth, type ReadinessCheck } from './health';

function buildApp(checks: Record<string, ReadinessCheck>, service = 'health-test'): Express {
  const app = express();
  mountHealth(app, createRegistry(service), checks);
  return app;
}

describe('/healthz', () => {
  it('answers 200 when every check passes', async () => {
    const res = await request(buildApp({ database: () => undefined })).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers 200 even when a dependency is down (it never runs the checks)', async () => {
    let ran = false;
    const app = buildApp({
      database: () => {
        ran = true;
        throw new Error('connection refused');
      },
    });
    const res = await request(app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(ran).toBe(false);
  });
});

describe('/readyz', () => {
  it('answers 200 "ready" with every check ok when all pass', async () => {
    const app = buildApp({ database: async () => undefined, broker: () => undefined });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', broker: 'ok' } });
  });

  it('answers 200 with no checks configured', async () => {
    const res = await request(buildApp({})).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: {} });
  });

  it('answers 503 naming the check that throws, with its message', async () => {
    const app = buildApp({
      database: async () => undefined,
      broker: () => {
        throw new Error('starting');
      },
    });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'not ready', checks: { database: 'ok', broker: 'starting' } });
  });

  it('answers 503 naming the check whose promise rejects', async () => {
    const app = buildApp({ database: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:5432')) });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'not ready', checks: { database: 'ECONNREFUSED 127.0.0.1:5432' } });
  });

  it('reports "failed" for a check that throws without a message', async () => {
    const app = buildApp({
      database: () => {
        throw new Error('');
      },
    });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ database: 'failed' });
  });

  it('reports a non-Error rejection as its text', async () => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case under test
    const app = buildApp({ broker: () => Promise.reject('channel closed') });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ broker: 'channel closed' });
  });

  it('answers 503 naming a check that never answers, once its 2 s timeout passes', async () => {
    const app = buildApp({
      database: async () => undefined,
      broker: () => new Promise<void>(() => undefined),
    });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'not ready', checks: { database: 'ok', broker: 'timed out after 2000 ms' } });
  }, 10_000);

  it('turns ready once a failing check recovers', async () => {
    let up = false;
    const app = buildApp({
      startup: () => {
        if (!up) throw new Error('starting');
      },
    });
    expect((await request(app).get('/readyz')).status).toBe(503);
    up = true;
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { startup: 'ok' } });
  });
});

describe('/metrics', () => {
  it('returns Prometheus text with the default Node metrics labelled with the service', async () => {
    const res = await request(buildApp({}, 'billing')).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(res.text).toMatch(/^process_cpu_user_seconds_total\{service="billing"\} \d/m);
    expect(res.text).toContain('nodejs_heap_size_total_bytes{service="billing"}');
  });

  it('labels each registry with its own service', async () => {
    const res = await request(buildApp({}, 'gateway')).get('/metrics');
    expect(res.text).toContain('service="gateway"');
    expect(res.text).not.toContain('service="billing"');
  });

  it('shows a stall of the event loop in the lag maximum (the monitor samples every 100 ms)', async () => {
    const app = buildApp({}, 'stalled');
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Timers fire in the order they are due: after 150 ms the monitor (due every 100 ms) has taken
    // its first sample, and after the stall its late sample is recorded before our timer fires.
    await sleep(150);
    const until = Date.now() + 400;
    while (Date.now() < until); // the loop blocked for 400 ms
    await sleep(150);
    const res = await request(app).get('/metrics');
    const max = Number(/^nodejs_eventloop_lag_max_seconds\{service="stalled"\} (\S+)$/m.exec(res.text)?.[1]);
    expect(max).toBeGreaterThanOrEqual(0.2);
  });
});
