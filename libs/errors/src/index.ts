/**
 * One error model for the whole fleet. An AppError carries the exact HTTP status and JSON body the
 * contract promises, so an error raised in billing (402 with credits_required) crosses the bus and
 * reaches the HTTP client unchanged. Anything that is not an AppError is internal: it is logged and
 * the client only sees a generic 500.
 */
export type ErrorBody = { error: string } & Record<string, unknown>;

export class AppError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  /** Extra response headers (e.g. Retry-After), applied by the HTTP layer. */
  readonly headers: Record<string, string>;

  constructor(status: number, body: ErrorBody, headers: Record<string, string> = {}) {
    super(body.error);
    this.name = 'AppError';
    this.status = status;
    this.body = body;
    this.headers = headers;
  }

  static badRequest(message: string): AppError {
    return new AppError(400, { error: message });
  }
  static notFound(message = 'Not found'): AppError {
    return new AppError(404, { error: message });
  }
  static conflict(message: string): AppError {
    return new AppError(409, { error: message });
  }
  static insufficientCredits(required: number, remaining: number): AppError {
    return new AppError(402, {
      error: 'Insufficient credits',
      credits_required: required,
      credits_remaining: remaining,
    });
  }
  /** A dependency (another service, the broker) did not answer: safe to retry. */
  static unavailable(message = 'Service temporarily unavailable, retry shortly'): AppError {
    return new AppError(503, { error: message }, { 'Retry-After': '2' });
  }
  static internal(): AppError {
    return new AppError(500, { error: 'Internal error' });
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** The serialisable form of an AppError as it travels in an RPC reply. */
export interface WireError {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

export function toWire(e: AppError): WireError {
  return { status: e.status, body: e.body, headers: e.headers };
}

export function fromWire(w: WireError): AppError {
  return new AppError(w.status, w.body, w.headers ?? {});
}

/** Fixed texts of body errors, shared by the HTTP layer and the request validators. */
export const INVALID_JSON_BODY = 'Invalid JSON body';
export const NOT_AN_OBJECT = 'Request body must be a JSON object';
