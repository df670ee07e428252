import type { AppError, AuthChallenge, ErrorBody, ErrorDetails, ErrorKind } from './app-error';

/**
 * Where statuses are decided: each error kind's HTTP status, and the headers its details become.
 * Every edge that answers an error over HTTP (the services' error handler, the gateway's MCP, SSE,
 * idempotency and admin surfaces, the RPC wire for older peers) reads it here.
 */
const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  upstream_failed: 502,
  unavailable: 503,
  timed_out: 504,
};

const KIND_OF_STATUS: ReadonlyMap<number, ErrorKind> = new Map(
  Object.entries(STATUS_OF_KIND).map(([kind, status]) => [status, kind as ErrorKind]),
);

export function httpStatusOf(kind: ErrorKind): number {
  return STATUS_OF_KIND[kind];
}

/** The kind an HTTP status stands for; a status without one is the nearest general kind. */
export function kindOfHttpStatus(status: number): ErrorKind {
  return KIND_OF_STATUS.get(status) ?? (status >= 400 && status < 500 ? 'invalid' : 'internal');
}

/** What an error is over HTTP: status, the headers of its details, the contract's body. */
export interface HttpErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

function challengeHeader(c: AuthChallenge): string {
  return c.params.length === 0 ? c.scheme : `${c.scheme} ${c.params.map(([k, v]) => `${k}="${v}"`).join(', ')}`;
}

/** The response headers an error's details become. */
export function httpHeadersOf(details: ErrorDetails): Record<string, string> {
  const headers: Record<string, string> = {};
  if (details.retryAfterSec !== undefined) headers['Retry-After'] = String(details.retryAfterSec);
  if (details.challenge) headers['WWW-Authenticate'] = challengeHeader(details.challenge);
  if (details.allowedMethods) headers.Allow = details.allowedMethods.join(', ');
  if (details.resourceSize !== undefined) headers['Content-Range'] = `bytes */${details.resourceSize}`;
  return headers;
}

export function httpResponseOf(err: AppError): HttpErrorResponse {
  return { status: httpStatusOf(err.kind), headers: httpHeadersOf(err.details), body: err.body };
}

/** The details an older peer's headers carried (it sent only status, body and headers). */
export function detailsOfHttpHeaders(headers: Readonly<Record<string, string>>): ErrorDetails {
  const details: ErrorDetails = {};
  const retryAfter = headers['Retry-After'];
  if (retryAfter !== undefined && /^\d+$/.test(retryAfter)) details.retryAfterSec = Number(retryAfter);
  if (headers.Allow !== undefined) details.allowedMethods = headers.Allow.split(/,\s*/);
  const size = /^bytes \*\/(\d+)$/.exec(headers['Content-Range'] ?? '')?.[1];
  if (size !== undefined) details.resourceSize = Number(size);
  return details;
}
