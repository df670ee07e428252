import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import client from 'prom-client';
import { AppError, httpResponseOf, isAppError } from '@mf/errors';
import type { Logger } from '@mf/logger';
import { lazyRequestLogger, requestIdAndAccessLog } from './access-log';
import { hostileJsonProblem, isValidUtf8, nestedDeeperThan, TOO_DEEP_MESSAGE } from './hostile-input';

// `req.id` is set by createHttpApp from X-Request-Id or a fresh uuid (access-log.ts); always a string.
export function requestId(req: { id: unknown }): string {
  return String(req.id);
}

export interface HttpAppOptions {
  logger: Logger;
  registry?: client.Registry;
  /** Route label for metrics when no route matched. */
  serviceName?: string;
  /** express's `trust proxy` (TRUST_PROXY): whose X-Forwarded-For gives req.ip. Default: nobody's. */
  trustProxy?: boolean | number | string[];
}

const UNLOGGED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * An express app with the fleet's common behaviour: a request id on every request, a JSON access
 * log, request metrics. Call `finish(app)` after mounting routes to add the 404 and error handlers.
 */
export function createHttpApp({ logger, registry, trustProxy = false }: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxy);

  // One middleware for the request id and the access log; req.log only when something logs.
  app.use(requestIdAndAccessLog(logger, (url) => UNLOGGED.has(url)));
  lazyRequestLogger(app, logger);

  if (registry) app.use(requestMetrics(registry));
  app.use(queryTextGuard());

  return app;
}

function requestMetrics(registry: client.Registry): RequestHandler {
  const histogram = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [registry],
  });
  return (req, res, next) => {
    const end = histogram.startTimer();
    res.on('finish', () => {
      // The matched route pattern, never the raw URL: ids in paths would explode label cardinality.
      // express types the matched route as `any`.
      const matched = (req.route as { path?: string } | undefined)?.path;
      const route = matched ? `${req.baseUrl}${matched}` : 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}

export interface JsonBodyOptions {
  /**
   * Refuse hostile text (hostile-input.ts): invalid UTF-8, control characters, unpaired surrogates,
   * nesting deeper than MAX_JSON_DEPTH. Default true; off only where the body is never used.
   */
  hostileTextChecks?: boolean;
  /**
   * Only `application/json` and `+json` bodies (default true): any other declared type, or a body
   * with none, is 415 instead of being parsed as JSON behind the client's back. Off only for
   * upstream callbacks, whose senders we do not control.
   */
  jsonTypeOnly?: boolean;
  /** The body must be a JSON object (default true); off where arrays are valid (JSON-RPC batches). */
  objectOnly?: boolean;
}

export const UNSUPPORTED_MEDIA_TYPE = 'Content-Type must be application/json';
export const NOT_AN_OBJECT = 'Request body must be a JSON object';
const JSON_TYPES = ['application/json', '+json'];

/** A body-parser error of ours, mapped by toAppError like body-parser's own. */
function parserError(type: string, message: string): Error {
  return Object.assign(new Error(message), { type });
}

/** Our parser error type for a body nested too deeply, seen before it is parsed. */
const TOO_DEEP_TYPE = 'entity.too.deep';

/**
 * Before decoding: a charset other than UTF-8 is a 415 (body-parser would decode UTF-16 and
 * UTF-32 too), bytes that are not UTF-8 are not JSON text (RFC 8259 §8.1), and nesting past the
 * limit is refused unparsed, like a body over the size limit (whether or not the rest is valid JSON).
 */
function requireUtf8(_req: unknown, _res: unknown, buf: Buffer, encoding: string): void {
  if (encoding !== 'utf-8') throw parserError('charset.unsupported', `unsupported charset "${encoding}"`);
  if (!isValidUtf8(buf)) throw parserError('entity.parse.failed', 'body is not valid UTF-8');
  if (nestedDeeperThan(buf)) throw parserError(TOO_DEEP_TYPE, TOO_DEEP_MESSAGE);
}

/** Whether the request carries body bytes (an empty POST with Content-Length: 0 does not). */
function hasContent(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

/**
 * JSON bodies. Mounted after authentication, so unauthenticated clients never get a body parsed.
 * Hostile text is refused here, once for every endpoint, with a 400 naming the field.
 */
export function jsonBody(
  limit = '1mb',
  { hostileTextChecks = true, jsonTypeOnly = true, objectOnly = true }: JsonBodyOptions = {},
): RequestHandler {
  const parse = express.json({
    limit,
    strict: false,
    type: () => true,
    ...(hostileTextChecks ? { verify: requireUtf8 } : {}),
  });
  return (req, res, next) => {
    // No body at all (most GETs): what the parser would conclude (req.body undefined), without running it.
    if (req.headers['transfer-encoding'] === undefined && req.headers['content-length'] === undefined) return next();
    if (jsonTypeOnly && hasContent(req) && !req.is(JSON_TYPES))
      return next(new AppError('unsupported_media_type', { error: UNSUPPORTED_MEDIA_TYPE }));
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      // Hostile text first: a body nested too deeply is refused as such, whatever its top level.
      const problem = hostileTextChecks ? hostileJsonProblem(req.body) : null;
      if (problem) return next(AppError.badRequest(problem));
      const notObject =
        objectOnly && hasContent(req) && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body));
      next(notObject ? AppError.badRequest(NOT_AN_OBJECT) : undefined);
    });
  };
}

/**
 * Query parameters obey the text rules of bodies: a NUL in `?video_id=%00` would otherwise reach
 * a database query and end as a 500. Mounted by createHttpApp for every route.
 */
export function queryTextGuard(): RequestHandler {
  return (req, _res, next) => {
    const problem = hostileJsonProblem(req.query, 'query');
    next(problem ? AppError.badRequest(problem) : undefined);
  };
}

/** Node's own answer to a request it cannot parse (headers over 16 KB, bad bytes), in the contract's body. */
const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'Request headers too large' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'Request chunk extensions too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'Request timeout' },
};

/**
 * Sockets whose last request has been answered (answerClientErrors marks them): a client error
 * there is the rest of that request (a body still arriving after a 401, then Node's request
 * timeout), which must get no second answer. Cleared when the socket's next request begins.
 */
const answered = new WeakSet<Duplex>();

/**
 * A `clientError` listener for an http.Server: the same status Node would send (431, 413, 408,
 * else 400), with a JSON error body instead of an empty one. Never writes into a response that
 * has started (Node's own rule), nor after the socket's request was answered (see
 * answerClientErrors), and ends the connection.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // The socket's response in flight, if any (Node keeps it there; not in the public types).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent || answered.has(socket)) {
    socket.destroy();
    return;
  }
  const { status, message } = CLIENT_ERRORS[err.code ?? ''] ?? { status: 400, message: 'Bad request' };
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Installs answerClientError on a server, with what it needs to know: which sockets' requests have
 * been answered. A response sent before its request was read whole (a 401 before the body) leaves
 * Node reading the body; if that never finishes, Node's request timeout is a client error on a
 * socket that already has its answer: the client must not get an unsolicited 408 after it.
 */
export function answerClientErrors(server: Server): void {
  // Before the app's own listener, which may answer at once.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    answered.delete(socket);
    res.once('finish', () => answered.add(socket));
  });
  server.on('clientError', answerClientError);
}

/** Adds the 404 handler and the one error handler that renders the contract's error body. */
export function finish(app: Express, logger: Logger): void {
  app.use((_req, _res, next) => next(AppError.notFound('Not found')));
  const handler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    const appError = toAppError(err);
    const { status, headers, body } = httpResponseOf(appError);
    if (status >= 500) {
      // Internal detail goes to the log only; the client gets the request id to quote.
      (req.log ?? logger).error({ err, requestId: requestId(req) }, 'request failed');
    }
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.status(status).json(status >= 500 ? { ...body, request_id: requestId(req) } : body);
  };
  app.use(handler);
}

/** Maps body-parser and other framework errors onto the contract's messages. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const e = err as { type?: string; status?: number; limit?: number };
  switch (e?.type) {
    case 'entity.parse.failed':
      return AppError.badRequest('Invalid JSON body');
    case TOO_DEEP_TYPE:
      return AppError.badRequest(TOO_DEEP_MESSAGE);
    case 'entity.too.large':
      return new AppError('too_large', { error: `Request body too large (max ${e.limit ?? 0} bytes)` });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', { error: 'Request body must be UTF-8 encoded JSON' });
    case 'request.aborted':
      return AppError.badRequest('Request aborted');
  }
  // The router's "Failed to decode param" (a malformed %-escape in the path) is the client's fault.
  if (err instanceof URIError && e.status === 400) return AppError.badRequest('Malformed URL');
  return AppError.internal();
}

/** Wraps an async handler so a rejection reaches the error handler (express 5 does this too). */
export function route(fn: RequestHandler): RequestHandler {
  return (req, res, next) => Promise.resolve(fn(req, res, next)).catch(next);
}
