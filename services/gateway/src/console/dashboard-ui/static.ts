import express, { type RequestHandler, type Response, type Router } from 'express';
import fs from 'node:fs';
import path from 'node:path';

/**
 * services/gateway/dashboard: the single-page application, plain files (no build step). The
 * production build copies it beside the bundle (dist/dashboard); from source it is two levels up.
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
 * Serves the dashboard's files at /dashboard/ (index.html at /dashboard and /dashboard/). Mount it
 * after the /dashboard/api router: API paths are never answered here, so an unknown API path gets
 * the JSON 404 rather than a file.
 */
export function dashboardStatic(dir: string = DASHBOARD_DIR, publicBaseUrl?: string): Router {
  const router = express.Router();
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

  router.use('/dashboard', headers);
  router.get(['/dashboard', '/dashboard/', '/dashboard/index.html'], sendIndex);
  router.use(
    '/dashboard',
    express.static(dir, {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      // Unhashed file names: the browser may keep a copy but must revalidate it (ETag) every time.
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );
  return router;
}
