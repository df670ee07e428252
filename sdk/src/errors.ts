import { EXPORT_ERROR_CODES } from './generated/contract-values';
import type { ErrorBody, ExportErrorCode, Job } from './types';

/** Any non-2xx answer of the API. `body` is the parsed JSON body (or the raw text when not JSON). */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody | string | null;
  readonly requestId: string | null;

  constructor(status: number, body: ErrorBody | string | null, requestId: string | null, message?: string) {
    super(message ?? ApiError.messageOf(status, body));
    this.name = new.target.name;
    this.status = status;
    this.body = body;
    this.requestId = requestId;
  }

  private static messageOf(status: number, body: ErrorBody | string | null): string {
    if (body && typeof body === 'object') {
      const msg = typeof body.message === 'string' ? `${body.error}: ${body.message}` : String(body.error);
      return `${status} ${msg}`;
    }
    return `${status} ${typeof body === 'string' && body ? body.slice(0, 200) : 'HTTP error'}`;
  }
}

/** 401: missing or invalid key. */
export class AuthenticationError extends ApiError {}

/** 403: the key lacks the operation's scope. */
export class PermissionError extends ApiError {
  get requiredScope(): string | null {
    const b = this.body;
    return b && typeof b === 'object' && typeof b.required_scope === 'string' ? b.required_scope : null;
  }
}

/** 402: not enough credits. */
export class InsufficientCreditsError extends ApiError {
  readonly creditsRequired: number | null;
  readonly creditsRemaining: number | null;
  constructor(status: number, body: ErrorBody | string | null, requestId: string | null) {
    super(status, body, requestId);
    const b = body && typeof body === 'object' ? body : {};
    this.creditsRequired =
      typeof (b as ErrorBody).credits_required === 'number' ? ((b as ErrorBody).credits_required as number) : null;
    this.creditsRemaining =
      typeof (b as ErrorBody).credits_remaining === 'number' ? ((b as ErrorBody).credits_remaining as number) : null;
  }
}

/** 404 */
export class NotFoundError extends ApiError {}

/** 409 */
export class ConflictError extends ApiError {}

/** 400: the message names the field. */
export class ValidationError extends ApiError {}

/** 429: `retryAfterSec` from the Retry-After header (or the body's retry_after). */
export class RateLimitError extends ApiError {
  readonly retryAfterSec: number | null;
  constructor(status: number, body: ErrorBody | string | null, requestId: string | null, retryAfterSec: number | null) {
    super(status, body, requestId);
    this.retryAfterSec = retryAfterSec;
  }
}

/** 5xx */
export class ServerError extends ApiError {}

/** An export failure: `{ error: <code>, message }` (docs/export.md). */
export class ExportError extends ApiError {
  /** A documented code, or one a newer server added (`string & {}` keeps the known ones suggested). */
  readonly code: ExportErrorCode | (string & {});
  readonly exportMessage: string;
  readonly retryAfterSec: number | null;
  constructor(status: number, body: ErrorBody, requestId: string | null, retryAfterSec: number | null) {
    super(status, body, requestId);
    this.code = body.error;
    this.exportMessage = typeof body.message === 'string' ? body.message : '';
    this.retryAfterSec = retryAfterSec;
  }
}

/** The request never got an HTTP answer (connection refused, reset, DNS, timeout...). */
export class ConnectionError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'ConnectionError';
  }
}

/** waitForJob: the job ended failed or cancelled. */
export class JobFailedError extends Error {
  readonly job: Job;
  readonly status: 'failed' | 'cancelled';
  constructor(job: Job) {
    super(`job ${job.job_id} ${job.status}${job.error ? `: ${job.error}` : ''}`);
    this.name = 'JobFailedError';
    this.job = job;
    this.status = job.status as 'failed' | 'cancelled';
  }
}

/** waitForJob: timeoutMs passed while the job was still processing. */
export class WaitTimeoutError extends Error {
  readonly job: Job | null;
  constructor(jobId: string, timeoutMs: number, job: Job | null) {
    super(`job ${jobId} still ${job?.status ?? 'unknown'} after ${timeoutMs} ms`);
    this.name = 'WaitTimeoutError';
    this.job = job;
  }
}

/** verifyWebhook: a missing or bad signature, a timestamp out of tolerance, a malformed header or body. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

const EXPORT_CODES = new Set<string>(EXPORT_ERROR_CODES);

/** Parses Retry-After (seconds, or an HTTP date) into seconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The typed error for a non-2xx response. */
export function errorFromResponse(
  status: number,
  body: ErrorBody | string | null,
  headers: Headers,
  opts: { exportRoute?: boolean } = {},
): ApiError {
  const headerId = headers.get('x-request-id');
  const bodyId = body && typeof body === 'object' && typeof body.request_id === 'string' ? body.request_id : null;
  const requestId = headerId ?? bodyId;
  let retryAfter = parseRetryAfter(headers.get('retry-after'));
  if (retryAfter === null && body && typeof body === 'object' && typeof body.retry_after === 'number')
    retryAfter = body.retry_after;
  if (opts.exportRoute && body && typeof body === 'object' && EXPORT_CODES.has(body.error)) {
    return new ExportError(status, body, requestId, retryAfter);
  }
  switch (status) {
    case 400:
      return new ValidationError(status, body, requestId);
    case 401:
      return new AuthenticationError(status, body, requestId);
    case 402:
      return new InsufficientCreditsError(status, body, requestId);
    case 403:
      return new PermissionError(status, body, requestId);
    case 404:
      return new NotFoundError(status, body, requestId);
    case 409:
      return new ConflictError(status, body, requestId);
    case 429:
      return new RateLimitError(status, body, requestId, retryAfter);
    default:
      return status >= 500 ? new ServerError(status, body, requestId) : new ApiError(status, body, requestId);
  }
}
