import type { RequestHandler } from 'express';

/**
 * Media URLs as the dashboard can load them, whatever host the browser opened it on: the
 * services build absolute result URLs from PUBLIC_BASE_URL (`http://localhost:8080/media/...`),
 * which a page opened at `http://127.0.0.1:8080` (or a LAN name, an ingress host) cannot load
 * under its own-origin CSP, and which may not even resolve from that browser. The gateway serves
 * /media itself, so the same path relative to the page's own origin is the same object.
 */
export function relativeMediaUrls<T>(value: T, publicBaseUrl: string): T {
  const prefix = `${publicBaseUrl.replace(/\/+$/, '')}/media/`;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.startsWith(prefix) ? `/media/${v.slice(prefix.length)}` : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** Every JSON answer of the dashboard API carries its media URLs relative to the page's origin. */
export function sameOriginMedia(publicBaseUrl: string): RequestHandler {
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => json(relativeMediaUrls(body, publicBaseUrl));
    next();
  };
}
