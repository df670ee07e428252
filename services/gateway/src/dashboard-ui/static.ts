import express, { type RequestHandler, type Response, type Router } from 'express';
import path from 'node:path';

/** services/gateway/dashboard: the single-page application, plain files (no build step). */
export const DASHBOARD_DIR = path.resolve(__dirname, '..', '..', 'dashboard');

// The app loads nothing from elsewhere: scripts, styles and API calls are same-origin, media comes
// from /media on this origin. No inline script or style, so a value that slipped into the DOM as
// markup still could not run; frame-ancestors stops the dashboard being framed (clickjacking).
export const DASHBOARD_CSP =
  "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

function securityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/**
 * Serves the dashboard's files at /dashboard/ (index.html at /dashboard and /dashboard/). Mount it
 * after the /dashboard/api router: API paths are never answered here, so an unknown API path gets
 * the JSON 404 rather than a file.
 */
export function dashboardStatic(dir: string = DASHBOARD_DIR): Router {
  const router = express.Router();
  const indexFile = path.join(dir, 'index.html');

  const headers: RequestHandler = (req, res, next) => {
    if (req.path === '/api' || req.path.startsWith('/api/')) return next('router');
    securityHeaders(res);
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
