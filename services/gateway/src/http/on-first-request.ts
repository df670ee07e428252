import type { Request, RequestHandler } from 'express';

/**
 * A handler built on the first request it is asked to answer, then reused: for routers whose
 * modules (the MCP SDK with zod, the OAuth handlers) are megabytes of an idle replica's heap that
 * most replicas never need (the memory bench, bench/README.md). `build` is
 * synchronous, so requests arriving together still build it once. `handles` says which requests
 * need it (a superset of what the router answers: a request it lets through loads nothing).
 */
export function onFirstRequest(
  build: () => RequestHandler,
  handles: (req: Request) => boolean = () => true,
): RequestHandler {
  let handler: RequestHandler | undefined;
  return (req, res, next) => {
    if (!handles(req)) return next();
    try {
      handler ??= build();
    } catch (err) {
      return next(err);
    }
    return handler(req, res, next);
  };
}
