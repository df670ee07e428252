/** The gateway's own limits of its slow routes (config: SUBMIT_, INSTRUCT_, EXPORT_, ASSET_IMPORT_TIMEOUT_MS). */
export interface RouteTimeouts {
  submitTimeoutMs: number;
  instructTimeoutMs: number;
  exportTimeoutMs: number;
  importTimeoutMs: number;
}

/** Every other POST is one RPC call (RPC_TIMEOUT_MS, 5 s by default): 60 s is ample. */
export const DEFAULT_ROUTE_MS = 60_000;
/** Slack past the route's own limit before a waiting retry presumes the owner dead. */
export const LEASE_MARGIN_MS = 30_000;

/**
 * How long the first request holds its key: the longest its route may take, plus a margin, so a
 * waiting retry takes over only from an owner that cannot still be running.
 * `path` is relative to /api/v1.
 */
export function leaseFor(path: string, t: RouteTimeouts): number {
  if (/\/generate$/.test(path)) return t.submitTimeoutMs + LEASE_MARGIN_MS;
  if (/\/instruct$/.test(path)) return t.instructTimeoutMs + LEASE_MARGIN_MS;
  if (/\/export$/.test(path)) return t.exportTimeoutMs + LEASE_MARGIN_MS;
  if (/\/assets$/.test(path)) return t.importTimeoutMs + LEASE_MARGIN_MS;
  return DEFAULT_ROUTE_MS + LEASE_MARGIN_MS;
}
