import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Router, type Response } from 'express';

/**
 * Where redoc's standalone bundle lives: beside the production build (dist/, which carries a copy
 * instead of the redoc package), else in the redoc package (a gateway dependency).
 */
export const REDOC_BUNDLE = fs.existsSync(path.join(__dirname, 'redoc.standalone.js'))
  ? path.join(__dirname, 'redoc.standalone.js')
  : path.join(path.dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

/**
 * Redoc renders with inline styles (styled-components) and runs its search in a blob: worker, so
 * the reference routes get their own CSP; every other route keeps its own.
 */
export const REFERENCE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const REFERENCE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Mediaforge API reference</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <redoc spec-url="/api/v1/openapi.json"></redoc>
    <script src="/api/v1/reference/redoc.standalone.js"></script>
  </body>
</html>
`;

/**
 * Redoc's sidebar shows Redocly's logo from their CDN, which the reference's CSP (rightly) blocks;
 * the bundle is served with a blank inline picture in its place, so the page loads nothing from
 * elsewhere and logs no violation.
 */
export const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const BLANK_LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";
let redocBundle: Buffer | undefined;
function servedRedocBundle(): Buffer {
  redocBundle ??= Buffer.from(fs.readFileSync(REDOC_BUNDLE, 'utf8').split(REDOC_CDN_LOGO).join(BLANK_LOGO));
  return redocBundle;
}

let served: { json: string; etag: string } | undefined;

/**
 * The document as served, built on its first request: derived from every schema, it is megabytes
 * of an idle gateway's heap that most replicas never need (the memory bench, bench/README.md).
 */
function servedDocument(): { json: string; etag: string } {
  if (!served) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
    const { openApiDocument } = require('./document') as typeof import('./document');
    const json = JSON.stringify(openApiDocument);
    served = { json, etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"` };
  }
  return served;
}

function referenceHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', REFERENCE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/**
 * The public description of the API: GET /api/v1/openapi.json, the rendered reference at
 * GET /api/v1/reference and redoc's bundle. No authentication; mount before the /api/v1 router.
 */
export function openApiRoutes(): Router {
  const router = Router();

  router.get('/api/v1/openapi.json', (req, res) => {
    const { json, etag } = servedDocument();
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('ETag', etag);
    res.setHeader('Access-Control-Allow-Origin', '*'); // code generators and editors fetch it cross-origin
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(json);
  });

  router.get('/api/v1/reference', (_req, res) => {
    referenceHeaders(res);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('html').send(REFERENCE_HTML);
  });

  router.get('/api/v1/reference/redoc.standalone.js', (_req, res) => {
    referenceHeaders(res);
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('text/javascript; charset=utf-8').send(servedRedocBundle());
  });

  return router;
}
