import express from 'express';
import request from 'supertest';
import { finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import { startupGate } from './startup-gate';

describe('startupGate', () => {
  it('answers 503 with Retry-After until the service is ready, then lets requests through to the routes', async () => {
    let ready = false;
    const app = express();
    app.use(startupGate(() => ready));
    app.post('/api/v1/things', (_req, res) => res.status(202).json({ ok: true }));
    finish(app, createLogger('gate-test', 'silent'));

    const early = await request(app).post('/api/v1/things');
    expect(early.status).toBe(503);
    expect(early.headers['retry-after']).toBe('1');
    expect(early.body).toMatchObject({ error: 'Service is starting, retry shortly' });

    ready = true;
    const later = await request(app).post('/api/v1/things');
    expect(later.status).toBe(202);
  });
});
