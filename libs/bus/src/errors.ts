import { AppError } from '@mf/errors';

/** The broker connection is down; the caller may retry. */
export class BusUnavailableError extends AppError {
  constructor(detail: string) {
    super('unavailable', { error: 'Service temporarily unavailable, retry shortly' }, { retryAfterSec: 2 });
    this.name = 'BusUnavailableError';
    this.message = detail;
  }
}

/** The remote service did not reply in time. */
export class RpcTimeoutError extends AppError {
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super('unavailable', { error: 'Service temporarily unavailable, retry shortly' }, { retryAfterSec: 2 });
    this.name = 'RpcTimeoutError';
    this.message = `RPC ${method} timed out after ${timeoutMs} ms`;
  }
}
