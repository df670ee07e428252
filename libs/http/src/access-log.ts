import { randomUUID } from 'node:crypto';
import type { Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from '@mf/logger';

declare module 'http' {
  interface IncomingMessage {
    /** The request id: the client's X-Request-Id when well-formed, else a fresh uuid. */
    id: string;
    /** A child logger bound to this request (`req: {id, method, url}`), made on first use. */
    log: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const REQUEST_LOG = Symbol('request log');

type WithLog = Request & { [REQUEST_LOG]?: Logger };

/** What a request is logged as: never its headers or body (the URL as received, not as a router trimmed it). */
function requestBindings(req: Request): { id: string; method: string; url: string } {
  return { id: req.id, method: req.method, url: req.originalUrl };
}

/**
 * `req.log` for every request of the app, made only when a handler logs something: the child
 * logger (and its serialised bindings) would otherwise cost every request, logged or not.
 */
export function lazyRequestLogger(app: Express, logger: Logger): void {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: WithLog): Logger {
      return (this[REQUEST_LOG] ??= logger.child({ req: requestBindings(this) }));
    },
    set(this: WithLog, value: Logger) {
      this[REQUEST_LOG] = value;
    },
  });
}

/**
 * The request id (X-Request-Id in and out) and one access-log line per request once its response
 * is done: `{req: {id, method, url}, res: {statusCode}, responseTime}`, "request completed" (or
 * "request aborted" when the client left first) at info, "request errored" at error for a 5xx.
 * The lines pino-http wrote, without its per-request child loggers.
 */
export function requestIdAndAccessLog(logger: Logger, ignore: (url: string) => boolean): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    req.id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    if (!ignore(req.url)) {
      const started = Date.now();
      // 'close' comes after 'finish' for a completed response, and alone for an aborted one.
      res.once('close', () => logDone(logger, req, res, Date.now() - started));
    }
    next();
  };
}

function logDone(logger: Logger, req: Request, res: Response, responseTime: number): void {
  const line = { req: requestBindings(req), res: { statusCode: res.statusCode }, responseTime };
  if (res.statusCode >= 500) {
    logger.error({ ...line, err: new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
    return;
  }
  logger.info(line, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
}
