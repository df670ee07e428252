/**
 * One error model for the whole fleet. The domain raises an AppError of a KIND (not found, rate
 * limited, ...) with the contract's JSON body and the facts the caller needs (how long to wait,
 * which methods a path takes); only the edges (./http-mapping) turn a kind into an HTTP status
 * and headers. An error raised in billing (payment_required with credits_required) crosses the bus
 * and reaches the HTTP client unchanged. Anything that is not an AppError is internal: it is logged
 * and the client only sees a generic 500.
 */
export type ErrorBody = { error: string } & Record<string, unknown>;

/** The kinds that are the caller's fault (fix the request, or wait). */
const CALLER_ERROR_KINDS = [
  'invalid',
  'unauthenticated',
  'payment_required',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'too_large',
  'unsupported_media_type',
  'range_not_satisfiable',
  'unprocessable',
  'rate_limited',
] as const;

/** The closed set of error kinds, the caller's first, then ours or a dependency's; each has one HTTP status at the edge (./http-mapping). */
export const ERROR_KINDS = [...CALLER_ERROR_KINDS, 'internal', 'upstream_failed', 'unavailable', 'timed_out'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** How a caller proves who it is: a scheme and its parameters, in order. */
export interface AuthChallenge {
  scheme: string;
  params: ReadonlyArray<readonly [string, string]>;
}

/** Domain facts an edge may need to answer the error (each becomes a header over HTTP). */
export interface ErrorDetails {
  /** Seconds the caller should wait before trying again. */
  retryAfterSec?: number;
  /** How to authenticate, for an unauthenticated caller. */
  challenge?: AuthChallenge;
  /** The methods the addressed resource takes. */
  allowedMethods?: readonly string[];
  /** The size in bytes of the resource a range asked of. */
  resourceSize?: number;
}

const CALLER_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(CALLER_ERROR_KINDS);

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly body: ErrorBody;
  readonly details: ErrorDetails;

  constructor(kind: ErrorKind, body: ErrorBody, details: ErrorDetails = {}) {
    super(body.error);
    this.name = 'AppError';
    this.kind = kind;
    this.body = body;
    this.details = details;
  }

  static badRequest(message: string): AppError {
    return new AppError('invalid', { error: message });
  }
  static notFound(message = 'Not found'): AppError {
    return new AppError('not_found', { error: message });
  }
  static conflict(message: string): AppError {
    return new AppError('conflict', { error: message });
  }
  static insufficientCredits(required: number, remaining: number): AppError {
    return new AppError('payment_required', {
      error: 'Insufficient credits',
      credits_required: required,
      credits_remaining: remaining,
    });
  }
  /** Too many requests: the body says how long to wait (`retry_after`), as the caller must too. */
  static rateLimited(message: string, retryAfterSec: number): AppError {
    return new AppError('rate_limited', { error: message, retry_after: retryAfterSec }, { retryAfterSec });
  }
  /** A dependency (another service, the broker) did not answer: safe to retry. */
  static unavailable(message = 'Service temporarily unavailable, retry shortly', retryAfterSec = 2): AppError {
    return new AppError('unavailable', { error: message }, { retryAfterSec });
  }
  static internal(): AppError {
    return new AppError('internal', { error: 'Internal error' });
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Whether the error is the caller's to fix (a refused request), not a failure on our side. */
export function isCallerFault(e: AppError): boolean {
  return CALLER_KINDS.has(e.kind);
}

/** Whether the error is an AppError of `kind`. */
export function isErrorKind(e: unknown, kind: ErrorKind): e is AppError {
  return isAppError(e) && e.kind === kind;
}
