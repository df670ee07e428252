import express, { type RequestHandler, type Response, type Router } from 'express';
import fs from 'node:fs';
import path from 'node:path';
import { DASHBOARD_STATIC_FILES } from './bundle-options';

/**
 * services/gateway/dashboard: the single-page application (docs/dashboard.md). The production build
 * puts it beside the bundle (dist/dashboard: index.html, style.css and the bundled app.js); from
 * source it is two levels up, TypeScript under src/ that the gateway bundles when it starts.
 */
export const DASHBOARD_DIR = [
  path.join(__dirname, 'dashboard'),
  path.resolve(__dirname, '..', '..', '..', 'dashboard'),
].find((d) => fs.existsSync(d))!;

// The app loads nothing from elsewhere: scripts, styles and API calls are same-origin, media comes
// from /media on this origin. No inline script or style, so a value that slipped into the DOM as
// markup still could not run; frame-ancestors stops the dashboard being framed (clickjacking).
export const DASHBOARD_CSP =
  "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

/**
 * The policy with PUBLIC_BASE_URL's origin allowed for images and media too. The dashboard API
 * answers media URLs relative to the page (same-origin-media.ts), so a page opened on another
 * host (127.0.0.1, a LAN name) loads them from itself; an absolute URL of the public origin that
 * still reaches the page (one pasted into the playground) is allowed as well.
 */
export function dashboardCsp(publicBaseUrl?: string): string {
  if (!publicBaseUrl) return DASHBOARD_CSP;
  const origin = new URL(publicBaseUrl).origin;
  return DASHBOARD_CSP.replace("img-src 'self'", `img-src 'self' ${origin}`).replace(
    "media-src 'self'",
    `media-src 'self' ${origin}`,
  );
}

function securityHeaders(res: Response, csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/**
 * Serves the dashboard's files at /dashboard/ (index.html at /dashboard and /dashboard/), and sends
 * `GET /` there. Mount it
 * after the /dashboard/api router: API paths are never answered here, so an unknown API path gets
 * the JSON 404 rather than a file.
 */
export function dashboardStatic(dir: string = DASHBOARD_DIR, publicBaseUrl?: string): Router {
  const router = express.Router();
  const bundleDir = bundledDashboard(dir);
  const indexFile = path.join(dir, 'index.html');
  const csp = dashboardCsp(publicBaseUrl);

  const headers: RequestHandler = (req, res, next) => {
    if (req.path === '/api' || req.path.startsWith('/api/')) return next('router');
    securityHeaders(res, csp);
    next();
  };

  const sendIndex: RequestHandler = (_req, res, next) => {
    // Never cached: it names the scripts, so a deploy must reach the next page load.
    res.setHeader('Cache-Control', 'no-store');
    res.sendFile(indexFile, (err) => err && next(err));
  };

  // The bare origin is where a newcomer lands: the dashboard (sign up, keys, playground).
  router.get('/', (_req, res) => res.redirect(302, '/dashboard/'));
  router.use('/dashboard', headers);
  router.get(['/dashboard', '/dashboard/', '/dashboard/index.html'], sendIndex);
  // Unhashed file names: the browser may keep a copy but must revalidate it (ETag) every time.
  const files = (from: string) =>
    express.static(from, {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    });
  const bundle = files(bundleDir);
  const assets = files(dir);
  // Only what the page loads: from source, dir also holds the TypeScript the bundle is made of.
  const served = new Set<string>(DASHBOARD_STATIC_FILES);
  router.use('/dashboard', (req, res, next) => {
    if (served.has(req.path.slice(1))) return assets(req, res, next);
    bundle(req, res, next);
  });
  return router;
}

const bundles = new Map<string, string>();

/** The directory holding app.js: the dashboard's own when built, else a bundle of its sources made once. */
function bundledDashboard(dir: string): string {
  if (fs.existsSync(path.join(dir, 'app.js'))) return dir;
  let bundleDir = bundles.get(dir);
  if (!bundleDir) {
    // Loaded only from source, where esbuild is installed; the production bundle leaves it out.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { bundleDashboardFromSource } = require('./source-bundle') as typeof import('./source-bundle');
    bundleDir = bundleDashboardFromSource(dir);
    bundles.set(dir, bundleDir);
  }
  return bundleDir;
}
