import type { Express } from 'express';
import http from 'node:http';
import net from 'node:net';
import request from 'supertest';
import { AppError } from '@mf/errors';
import { createLogger } from '@mf/logger';
import { answerClientErrors, createHttpApp, finish, jsonBody, route, toAppError } from './app';

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
    throw new AppError(
      'payment_required',
      { error: 'Insufficient credits', credits_required: 1135, credits_remaining: 10 },
      { retryAfterSec: 7 },
    );
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

/** POSTs raw bytes with the given Content-Type to the app on an ephemeral port. */
async function rawPost(
  app: Express,
  path: string,
  type: string,
  body: Buffer,
): Promise<{ status: number; body: unknown }> {
  const server = app.listen(0);
  await new Promise((r) => server.once('listening', r));
  try {
    const { port } = server.address() as net.AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    return { status: res.status, body: await res.json() };
  } finally {
    server.close();
  }
}

/** An app that echoes its parsed body, with another limit than buildApp's. */
function echoApp(limit: string): Express {
  const app = createHttpApp({ logger });
  app.use(jsonBody(limit));
  app.post('/echo', (req, res) => {
    res.json({ received: req.body });
  });
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

    it.each([
      ['text/plain'],
      ['application/x-www-form-urlencoded'],
      ['multipart/form-data; boundary=x'],
      ['application/jsonp'],
    ])('refuses a body declared as %s with 415, even when it is JSON text', async (type) => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', type)
        .send('{"prompt":"a cat","duration_seconds":5}');
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: 'Content-Type must be application/json' });
    });

    it('refuses a body sent without a Content-Type with 415', async () => {
      const res = await request(app).post('/echo').unset('Content-Type').send(Buffer.from('{"a":1}'));
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: 'Content-Type must be application/json' });
    });

    it('accepts application/json with parameters and any +json type', async () => {
      for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json', 'Application/JSON']) {
        const res = await request(app).post('/echo').set('Content-Type', type).send('{"a":1}');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ received: { a: 1 } });
      }
    });

    it('lets a request without body bytes through whatever its Content-Type (an empty POST)', async () => {
      const res = await request(app).post('/echo').set('Content-Type', 'text/plain').set('Content-Length', '0');
      expect(res.status).toBe(200);
    });

    it.each([
      ['an array', '[{"prompt":"a"}]'],
      ['a string', '"a cat"'],
      ['a number', '5'],
      ['null', 'null'],
    ])('refuses %s as the body with 400 saying the body must be a JSON object', async (_case, body) => {
      const res = await request(app).post('/echo').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Request body must be a JSON object' });
    });

    it('passes arrays and any declared type where both are turned off (JSON-RPC batches, upstream callbacks)', async () => {
      const lenient = createHttpApp({ logger });
      lenient.post('/rpc', jsonBody('1kb', { jsonTypeOnly: false, objectOnly: false }), (req, res) => {
        res.json({ received: req.body });
      });
      finish(lenient, logger);
      const res = await request(lenient).post('/rpc').set('Content-Type', 'text/plain').send('[1,2]');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: [1, 2] });
    });

    it('rejects a body declared in a charset other than UTF-8 with 415', async () => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json; charset=latin1')
        .send('{"a":1}');
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: 'Request body must be UTF-8 encoded JSON' });
    });

    it('rejects a body with bytes that are not UTF-8 as invalid JSON instead of repairing them', async () => {
      const body = Buffer.concat([Buffer.from('{"p":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]);
      // Raw bytes: supertest would serialise a Buffer declared as JSON.
      const res = await rawPost(app, '/echo', 'application/json', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Invalid JSON body' });
    });

    it.each([['utf-16'], ['utf-16le'], ['utf-32']])(
      'rejects a body declared as %s with 415 (only UTF-8 is JSON here)',
      async (charset) => {
        const res = await request(app)
          .post('/echo')
          .set('Content-Type', `application/json; charset=${charset}`)
          .send(Buffer.from('{"a":1}', 'utf16le'));
        expect(res.status).toBe(415);
        expect(res.body).toEqual({ error: 'Request body must be UTF-8 encoded JSON' });
      },
    );

    it('accepts a body declared as charset=UTF-8 in capitals', async () => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json; charset=UTF-8')
        .send('{"a":"é"}');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: { a: 'é' } });
    });

    it.each([
      ['a NUL', '{"p":"a\\u0000"}', 'p must not contain control characters'],
      ['an escape character', '{"p":["\\u001b[2J"]}', 'p[0] must not contain control characters'],
      ['an unpaired surrogate', '{"p":"\\ud800"}', 'p must be valid Unicode text (unpaired surrogate)'],
      ['a NUL in a field name', '{"\\u0000":1}', 'field names must not contain control characters'],
      [
        'nesting deeper than 64 levels',
        `{"p":${'['.repeat(65)}${']'.repeat(65)}}`,
        'JSON body nested too deeply (max 64 levels)',
      ],
      [
        'nesting deeper than 64 levels that is never closed (refused before parsing)',
        `{"p":${'['.repeat(300_000)}`,
        'JSON body nested too deeply (max 64 levels)',
      ],
    ])('rejects a body with %s with 400 naming the problem', async (_case, body, error) => {
      const res = await request(echoApp('1mb')).post('/echo').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    });

    it('keeps tabs and line breaks in strings', async () => {
      const res = await request(app).post('/echo').set('Content-Type', 'application/json').send('{"p":"a\\tb\\r\\nc"}');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: { p: 'a\tb\r\nc' } });
    });

    it('skips the text checks where they are turned off (a body that is never used)', async () => {
      const lenient = createHttpApp({ logger });
      lenient.post('/cb', jsonBody('1kb', { hostileTextChecks: false }), (req, res) => {
        res.json({ received: req.body });
      });
      finish(lenient, logger);
      const res = await request(lenient).post('/cb').set('Content-Type', 'application/json').send('{"p":"a\\u0000"}');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: { p: 'a\u0000' } });
    });
  });

  describe('query strings', () => {
    it('rejects a query parameter with an encoded NUL with 400 naming it, on any route', async () => {
      const res = await request(app).get('/jobs/1?video_id=a%00b');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'video_id must not contain control characters' });
    });

    it('rejects a repeated query parameter with a control character, naming the item', async () => {
      const res = await request(app).get('/ok?tag=a&tag=%1b');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'tag[1] must not contain control characters' });
    });

    it('lets an SQL-looking or CRLF query through as text for the route to judge', async () => {
      expect((await request(app).get("/ok?q=' OR 1=1 --&r=%0d%0aX-Injected: 1")).status).toBe(200);
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

    it('answers an unknown method on a path no route knows with 404', async () => {
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
      expect(mapped.kind).toBe('internal');
      expect(mapped.body).toEqual({ error: 'Internal error' });
    },
  );
});

describe('answerClientError', () => {
  /** Sends raw bytes to a server that answers client errors with answerClientError; resolves what comes back. */
  async function rawExchange(payload: string): Promise<string> {
    const app = createHttpApp({ logger });
    app.get('/ok', (_req, res) => {
      res.json({ ok: true });
    });
    const server = http.createServer(app);
    answerClientErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      return await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(payload));
        let received = '';
        socket.on('data', (d) => (received += d.toString('utf8')));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
    } finally {
      server.close();
    }
  }

  it('answers headers over Node’s 16 KB limit with 431 and a JSON error body, then closes', async () => {
    const reply = await rawExchange(`GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const [head, body] = reply.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(head).toMatch(/\r\nConnection: close/);
    expect(JSON.parse(body)).toEqual({ error: 'Request headers too large' });
  });

  it('answers a request Node cannot parse with 400 and a JSON error body', async () => {
    const reply = await rawExchange('GET /ok HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    const [head, body] = reply.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(body)).toEqual({ error: 'Bad request' });
  });

  it('writes nothing more on a socket whose request was answered before its body arrived (no 408 after a 401)', async () => {
    const app = createHttpApp({ logger });
    app.post('/guarded', (_req, res) => {
      res.status(401).json({ error: 'Missing Authorization header' });
    });
    // Node's request timeout is what fires on the body never finishing: short here, checked often.
    const server = http.createServer(
      { requestTimeout: 300, headersTimeout: 300, connectionsCheckingInterval: 50 },
      app,
    );
    answerClientErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const received = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write(
            'POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":',
          ),
        );
        let got = '';
        socket.on('data', (d) => (got += d.toString('utf8')));
        // Until the server closes the socket: after its request timeout has run out.
        socket.on('close', () => resolve(got));
        socket.on('error', reject);
      });
      expect(received).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
      expect(received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    } finally {
      server.close();
    }
  });

  it('leaves a well-formed request to the app', async () => {
    const reply = await rawExchange('GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(reply.endsWith('{"ok":true}')).toBe(true);
  });
});
