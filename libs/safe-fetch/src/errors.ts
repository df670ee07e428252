/** Why a URL was refused before (or instead of) fetching it. */
export type UnsafeUrlReason = 'scheme' | 'private-address' | 'invalid-url' | 'credentials' | 'port';

/** A URL we refuse to fetch: the caller gave us something unsafe, so this is a client error, not a retryable one. */
export class UnsafeUrlError extends Error {
  readonly reason: UnsafeUrlReason;

  constructor(reason: UnsafeUrlReason, message: string) {
    super(message);
    this.name = 'UnsafeUrlError';
    this.reason = reason;
  }
}

export type FetchErrorKind = 'status' | 'too-large' | 'timeout' | 'network' | 'content-type';

/** A permitted fetch that failed: the remote answered badly, too much, too slowly, or not at all. */
export class FetchError extends Error {
  readonly kind: FetchErrorKind;
  /** The HTTP status, for kind 'status'. */
  readonly status?: number;

  constructor(kind: FetchErrorKind, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FetchError';
    this.kind = kind;
    if (options.status !== undefined) this.status = options.status;
  }
}
