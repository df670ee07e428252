import type { Express } from 'express';
import request from 'supertest';
import { AppError } from '@mf/errors';
import { createLogger } from '@mf/logger';
import { createHttpApp, finish, jsonBody, route, toAppError } from './app';

// A silent pino logger (pino({ level: 'silent' }) with the fleet's settings); pino itself is not a
// direct dependency of this package, @mf/logger is.
const logger = createLogger('http-test', 'silent');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BODY_LIMIT_BYTES = 64;

function buildApp(): Express {
  const app = createHttpApp({ logger });
  app.use(jsonBody(`${BODY_LIMIT_BYTES}b`));
  app.post('/echo', (req, res) => {
    res.json({ received: req.body });
  });
  app.get('/jobs/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  app.get('/ok', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/payment', () => {
    throw new AppError(402, { error: 'Insufficient credits', credits_required: 1135, credits_remaining: 10 }, { 'Retry-After': '7', 'X-Custom': 'yes' });
  });
  app.get('/boom', () => {
    throw new Error('secret database password leaked in message');
  });
  app.get(
    '/async-boom',
    route(async () => {
      await Promise.resolve();
      throw new Error('async secret detail');
    }),
  );
  finish(app, logger);
  return app;
}

describe('createHttpApp + jsonBody + finish', () => {
  let app: Express;
  beforeEach(() => {
    app = buildApp();
  });

  describe('JSON bodies', () => {
    it('rejects a body that is not JSON with 400 "Invalid JSON body"', async () => {
      const res = await request(app).post('/echo').set('Content-Type', 'application/json').send('{"prompt": ');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Invalid JSON body' });
    });

    it('rejects a body over the size limit with 413 and a JSON error naming the limit', async () => {
      const big = JSON.stringify({ prompt: 'x'.repeat(BODY_LIMIT_BYTES * 4) });
      const res = await request(app).post('/echo').set('Content-Type', 'application/json').send(big);
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ error: `Request body too large (max ${BODY_LIMIT_BYTES} bytes)` });
    });

    it('accepts a body exactly within the limit', async () => {
      const body = JSON.stringify({ p: 'x'.repeat(BODY_LIMIT_BYTES - 10) });
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
      const res = await request(app).post('/echo').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: JSON.parse(body) });
    });

    it('parses a JSON body sent with Content-Type text/plain', async () => {
      const res = await request(app).post('/echo').set('Content-Type', 'text/plain').send('{"prompt":"a cat","duration_seconds":5}');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: { prompt: 'a cat', duration_seconds: 5 } });
    });

    it('parses a JSON body sent with Content-Type application/x-www-form-urlencoded (curl -d)', async () => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('{"prompt":"a dog","fast":true}');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: { prompt: 'a dog', fast: true } });
    });

    it('rejects a body declared in a charset other than UTF-8 with 415', async () => {
      const res = await request(app).post('/echo').set('Content-Type', 'application/json; charset=latin1').send('{"a":1}');
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: 'Request body must be UTF-8 encoded JSON' });
    });

    it('rejects a form-encoded body that is not JSON as invalid JSON', async () => {
      const res = await request(app).post('/echo').set('Content-Type', 'application/x-www-form-urlencoded').send('prompt=a+dog');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Invalid JSON body' });
    });
  });

  describe('request ids', () => {
    it('sets a fresh X-Request-Id on a response when the request carried none', async () => {
      const res = await request(app).get('/ok');
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    it('gives different requests different ids', async () => {
      const a = await request(app).get('/ok');
      const b = await request(app).get('/ok');
      expect(a.headers['x-request-id']).not.toEqual(b.headers['x-request-id']);
    });

    it('sets X-Request-Id on error responses too', async () => {
      const notFound = await request(app).get('/nope');
      const badJson = await request(app).post('/echo').send('{');
      expect(notFound.headers['x-request-id']).toMatch(UUID);
      expect(badJson.headers['x-request-id']).toMatch(UUID);
    });

    it('echoes a valid incoming X-Request-Id', async () => {
      const res = await request(app).get('/ok').set('X-Request-Id', 'client-req_42.abc');
      expect(res.headers['x-request-id']).toBe('client-req_42.abc');
    });

    it('replaces an incoming X-Request-Id containing spaces', async () => {
      const res = await request(app).get('/ok').set('X-Request-Id', 'has spaces in it');
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    it('replaces an incoming X-Request-Id of 300 characters', async () => {
      const res = await request(app).get('/ok').set('X-Request-Id', 'a'.repeat(300));
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    it('replaces an incoming X-Request-Id with header-injection characters', async () => {
      const res = await request(app).get('/ok').set('X-Request-Id', 'abc;<script>');
      expect(res.headers['x-request-id']).toMatch(UUID);
    });
  });

  describe('errors', () => {
    it('answers an unknown route with 404 {"error":"Not found"}', async () => {
      const res = await request(app).get('/does/not/exist');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not found' });
    });

    it('answers an unknown method on a known path with 404', async () => {
      const res = await request(app).delete('/ok');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not found' });
    });

    it('answers a path with a malformed %-escape with 400, not an internal error', async () => {
      const res = await request(app).get('/jobs/%E0%A4%A');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Malformed URL' });
    });

    it('decodes a well-formed %-escape in a path parameter', async () => {
      const res = await request(app).get('/jobs/a%20b');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: 'a b' });
    });

    it('renders a thrown AppError with exactly its status, body and headers', async () => {
      const res = await request(app).get('/payment');
      expect(res.status).toBe(402);
      expect(res.body).toEqual({ error: 'Insufficient credits', credits_required: 1135, credits_remaining: 10 });
      expect(res.headers['retry-after']).toBe('7');
      expect(res.headers['x-custom']).toBe('yes');
      expect(res.body).not.toHaveProperty('request_id');
    });

    it('renders a thrown plain Error as 500 "Internal error" with the request id and no internal detail', async () => {
      const res = await request(app).get('/boom');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal error', request_id: res.headers['x-request-id'] });
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.text).not.toContain('secret database password');
      expect(res.text).not.toContain('at ');
      expect(res.text).not.toContain('stack');
    });

    it('quotes the client-supplied request id in a 500 body', async () => {
      const res = await request(app).get('/boom').set('X-Request-Id', 'trace-123');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal error', request_id: 'trace-123' });
    });

    it('renders a rejected async handler as the same generic 500', async () => {
      const res = await request(app).get('/async-boom');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal error', request_id: res.headers['x-request-id'] });
      expect(res.text).not.toContain('async secret detail');
    });
  });
});

describe('toAppError', () => {
  it('passes an AppError through unchanged', () => {
    const err = AppError.conflict('Job already completed');
    expect(toAppError(err)).toBe(err);
  });

  it.each([[new Error('boom')], [new URIError('not from the router')], ['a string'], [null], [undefined]])(
    'maps %p to a generic 500',
    (thrown) => {
      const mapped = toAppError(thrown);
      expect(mapped.status).toBe(500);
      expect(mapped.body).toEqual({ error: 'Internal error' });
    },
  );
});
