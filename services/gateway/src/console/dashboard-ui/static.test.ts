import express, { type Express } from 'express';
import request from 'supertest';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import { DASHBOARD_CSP, dashboardCsp, dashboardStatic } from './static';

const logger = createLogger('gateway-dashboard-static-test', 'silent');

/** The gateway's order: the dashboard API first, then the static files, then the JSON 404. */
function app(): Express {
  const a = createHttpApp({ logger });
  const api = express.Router();
  api.get('/me', (_req, res) => res.json({ from: 'api' }));
  a.use('/dashboard/api', api);
  a.use(dashboardStatic());
  finish(a, logger);
  return a;
}

describe('dashboardStatic', () => {
  it('redirects GET / to /dashboard/', async () => {
    const res = await request(app()).get('/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/dashboard/');
    expect((await request(app()).get('/elsewhere')).status).toBe(404);
  });

  it.each(['/dashboard', '/dashboard/', '/dashboard/index.html'])(
    'serves the application shell at %s, never cached, with the security headers',
    async (path) => {
      const res = await request(app()).get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('<script type="module" src="/dashboard/app.js"></script>');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('same-origin');
    },
  );

  it('serves the bundled script as JavaScript and styles as CSS, revalidated on every use', async () => {
    const js = await request(app()).get('/dashboard/app.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(js.headers['cache-control']).toBe('no-cache');
    expect(js.headers.etag).toBeTruthy();
    expect(js.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect(js.text).toContain('function'); // one bundle: nothing left to import
    expect(js.text).not.toMatch(/^import /m);
    const source = await request(app()).get('/dashboard/src/app.ts');
    expect(source.status).toBe(404);
    const css = await request(app()).get('/dashboard/style.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });

  it('answers 304 to a revalidation of an unchanged file', async () => {
    const first = await request(app()).get('/dashboard/style.css');
    const again = await request(app()).get('/dashboard/style.css').set('If-None-Match', first.headers.etag);
    expect(again.status).toBe(304);
  });

  it('leaves /dashboard/api to the API router, and unknown API paths to the JSON 404', async () => {
    const me = await request(app()).get('/dashboard/api/me');
    expect(me.body).toEqual({ from: 'api' });
    const unknown = await request(app()).get('/dashboard/api/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Not found' });
    expect(unknown.headers['content-security-policy']).toBeUndefined();
  });

  it('answers 404 for a missing file and never serves files outside the folder', async () => {
    expect((await request(app()).get('/dashboard/nope.js')).status).toBe(404);
    expect((await request(app()).get('/dashboard/../src/main.ts')).status).toBe(404);
    expect((await request(app()).get('/dashboard/%2e%2e/src/main.ts')).status).toBe(404);
    expect((await request(app()).get('/dashboard/..%2fpackage.json')).status).toBe(404);
  });

  it('does not answer other methods than GET and HEAD', async () => {
    expect((await request(app()).post('/dashboard/app.js')).status).toBe(404);
    const head = await request(app()).head('/dashboard/');
    expect(head.status).toBe(200);
  });

  it("lets images and media load from PUBLIC_BASE_URL's origin as well as the page's own", () => {
    expect(dashboardCsp('http://localhost:8080/')).toBe(
      "default-src 'self'; img-src 'self' http://localhost:8080 data: blob:; media-src 'self' http://localhost:8080 blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    );
    expect(dashboardCsp(undefined)).toBe(DASHBOARD_CSP);
  });
});
