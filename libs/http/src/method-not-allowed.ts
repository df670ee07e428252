import type { RequestHandler, Router } from 'express';
import { AppError } from '@mf/errors';

/** The parts of express's router layers read here (router@2: `route`, `slash`, a sub-router's `stack`). */
interface LayerLike {
  route?: { path: unknown; methods: Record<string, boolean> };
  slash?: boolean;
  handle?: { stack?: LayerLike[] };
}

/** Route path -> the methods its routes take, from `stack` and every router mounted at its root. */
function collect(stack: LayerLike[], into: Map<string, Set<string>>): void {
  for (const layer of stack) {
    if (layer.route && typeof layer.route.path === 'string') {
      const methods = into.get(layer.route.path) ?? new Set<string>();
      for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== '_all') methods.add(m.toUpperCase());
      into.set(layer.route.path, methods);
    } else if (layer.slash && layer.handle?.stack) {
      // A router mounted at '/' (router.use(sub)): its paths are ours. A prefixed mount is skipped.
      collect(layer.handle.stack, into);
    }
  }
}

function allowedMethods(methods: Set<string>): string[] {
  const all = new Set(methods);
  if (all.has('GET')) all.add('HEAD'); // express answers HEAD with the GET route
  return [...all].sort();
}

/**
 * Call after every route of `router` is mounted: a request whose path one of its routes knows,
 * with a method none of them takes, gets 405 with `Allow` (RFC 9110 §15.5.6) instead of 404.
 */
export function answerMethodNotAllowed(router: Router): void {
  const byPath = new Map<string, Set<string>>();
  collect(router.stack as LayerLike[], byPath);
  for (const [path, methods] of byPath) {
    if (methods.size === 0) continue;
    const allowed = allowedMethods(methods);
    const allow = allowed.join(', ');
    const handler: RequestHandler = (req, _res, next) =>
      next(
        new AppError(
          'method_not_allowed',
          { error: `Method ${req.method} not allowed here; allowed: ${allow}` },
          { allowedMethods: allowed },
        ),
      );
    router.all(path, handler);
  }
}
