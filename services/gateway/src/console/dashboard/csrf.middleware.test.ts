import type { Express } from 'express';
import request from 'supertest';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import { refuseCrossOrigin, requireCsrfToken } from './csrf.middleware';

const logger = createLogger('dashboard-csrf-test', 'silent');
const REFUSED = { error: 'CSRF token missing or invalid' };
const TOKEN = 'T'.repeat(43);

/** A tiny app: the session is fixed by the test, then the two guards, then routes that echo. */
function app(publicBaseUrl = 'https://dash.example.com'): Express {
  const a = createHttpApp({ logger });
  a.use((req, _res, next) => {
    req.session = { userId: 1, role: 'user', csrfToken: TOKEN };
    next();
  });
  a.use(refuseCrossOrigin(publicBaseUrl), requireCsrfToken);
  a.get('/thing', (_req, res) => res.json({ read: true }));
  a.post('/thing', (_req, res) => res.json({ changed: true }));
  a.delete('/thing', (_req, res) => res.json({ changed: true }));
  finish(a, logger);
  return a;
}

describe('CSRF guards', () => {
  it('lets reads through without a token', async () => {
    await request(app()).get('/thing').expect(200, { read: true });
  });

  it('refuses a write without the token, with a wrong one, and with one of another length', async () => {
    await request(app()).post('/thing').expect(403, REFUSED);
    await request(app()).post('/thing').set('X-CSRF-Token', 'U'.repeat(43)).expect(403, REFUSED);
    await request(app()).delete('/thing').set('X-CSRF-Token', TOKEN.slice(1)).expect(403, REFUSED);
  });

  it("accepts a write carrying the session's token", async () => {
    await request(app()).post('/thing').set('X-CSRF-Token', TOKEN).expect(200, { changed: true });
  });

  it('refuses a write from another origin even with the right token', async () => {
    await request(app())
      .post('/thing')
      .set('X-CSRF-Token', TOKEN)
      .set('Origin', 'https://evil.example')
      .expect(403, REFUSED);
    await request(app()).post('/thing').set('X-CSRF-Token', TOKEN).set('Origin', 'null').expect(403, REFUSED);
    await request(app())
      .post('/thing')
      .set('X-CSRF-Token', TOKEN)
      .set('Sec-Fetch-Site', 'cross-site')
      .expect(403, REFUSED);
  });

  it("accepts the public base URL's origin and the request's own host", async () => {
    await request(app())
      .post('/thing')
      .set('X-CSRF-Token', TOKEN)
      .set('Origin', 'https://dash.example.com')
      .expect(200);
    const a = app();
    const server = a.listen(0);
    try {
      const port = (server.address() as { port: number }).port;
      await request(server)
        .post('/thing')
        .set('X-CSRF-Token', TOKEN)
        .set('Origin', `http://127.0.0.1:${port}`)
        .set('Sec-Fetch-Site', 'same-origin')
        .expect(200);
    } finally {
      server.close();
    }
  });
});
