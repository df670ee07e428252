import { AppError, ERROR_KINDS, type ErrorBody, type ErrorDetails, type ErrorKind } from './app-error';
import { detailsOfHttpHeaders, httpHeadersOf, httpStatusOf, kindOfHttpStatus } from './http-mapping';

/**
 * The serialisable form of an AppError as it travels in an RPC reply. `kind` and `details` are what
 * a peer reads; `status` and `headers` are written too, so a peer of the previous version (which
 * knew only those) reads the same error during a rolling deploy, and a reply from such a peer
 * (without `kind`) is read by its status.
 */
export interface WireError {
  kind?: ErrorKind;
  status: number;
  body: ErrorBody;
  details?: ErrorDetails;
  headers?: Record<string, string>;
}

export function toWire(e: AppError): WireError {
  return {
    kind: e.kind,
    status: httpStatusOf(e.kind),
    body: e.body,
    details: e.details,
    headers: httpHeadersOf(e.details),
  };
}

const KNOWN_KINDS: ReadonlySet<string> = new Set(ERROR_KINDS);

export function fromWire(w: WireError): AppError {
  if (w.kind !== undefined && KNOWN_KINDS.has(w.kind)) return new AppError(w.kind, w.body, w.details ?? {});
  return new AppError(kindOfHttpStatus(w.status), w.body, detailsOfHttpHeaders(w.headers ?? {}));
}
