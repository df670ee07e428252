// The dashboard's only way to the server: JSON to /dashboard/api on this origin, with the session
// cookie. State-changing calls carry the session's CSRF token (docs/dashboard-api.md).

export const BASE = '/dashboard/api';
const SAFE_METHODS = new Set(['GET', 'HEAD']);

let csrfToken: string | null = null;
let onSessionLost: () => void = () => {};

/** An error body as the API sends it (docs/dashboard-api.md), or null when there was none. */
export type ErrorBody = { error?: unknown; message?: unknown; request_id?: unknown; [key: string]: unknown } | null;

export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;

  constructor(status: number, body: ErrorBody) {
    super(messageOf(status, body));
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

function messageOf(status: number, body: ErrorBody): string {
  if (status === 0) return 'Could not reach the server. Check your connection and try again.';
  const b = body ?? {};
  // Export errors carry a code in `error` and the readable text in `message`.
  let text =
    typeof b.message === 'string'
      ? b.message
      : typeof b.error === 'string'
        ? b.error
        : `The request failed (HTTP ${status}).`;
  if (typeof b.request_id === 'string') text += ` (request id ${b.request_id})`;
  return text;
}

export function setCsrfToken(token: string | null | undefined): void {
  csrfToken = token || null;
}

/** Called when the server says the session is gone (401 on anything but sign-in and sign-up). */
export function onUnauthorized(handler: () => void): void {
  onSessionLost = handler;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One call; resolves to the answer's body typed as its contract says (@mf/contracts, checked
 * against the server's answers by the dashboard API's tests), null when there is none.
 */
export async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const form = body instanceof FormData;
  const headers = requestHeaders(method, 'application/json');
  // A form's Content-Type (multipart, with its boundary) is the browser's to set.
  if (body !== undefined && !form) headers['Content-Type'] = 'application/json';
  const res = await send(method, path, headers, form ? body : body === undefined ? undefined : JSON.stringify(body));
  return answer<T>(res, path);
}

/** The headers of a call: what it accepts, and the CSRF token on a write. */
export function requestHeaders(method: Method, accept: string): Record<string, string> {
  const headers: Record<string, string> = { Accept: accept };
  if (!SAFE_METHODS.has(method) && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  return headers;
}

/** One fetch to the dashboard API; a network failure is ApiError 0. */
export async function send(
  method: Method,
  path: string,
  headers: Record<string, string>,
  body?: BodyInit,
): Promise<Response> {
  try {
    return await fetch(BASE + path, { method, headers, body, credentials: 'same-origin', cache: 'no-store' });
  } catch {
    throw new ApiError(0, null);
  }
}

/** An answer's JSON body, or its ApiError (a 401 also ends the session in the app). */
export async function answer<T>(res: Response, path: string): Promise<T> {
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text) as unknown;
    } catch {
      data = { error: `The server answered HTTP ${res.status} with something that is not JSON.` };
    }
  }
  if (!res.ok) {
    if (res.status === 401 && path !== '/signin' && path !== '/signup') onSessionLost();
    throw new ApiError(res.status, data && typeof data === 'object' ? (data as ErrorBody) : null);
  }
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, body),
  patch: <T>(path: string, body?: unknown) => request<T>('PATCH', path, body),
  del: <T = null>(path: string) => request<T>('DELETE', path),
};

/** A query string from an object, leaving out empty values. */
export function query(params: Record<string, string | number | boolean | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** A path segment from an id taken from the URL or the API. */
export function seg(id: string | number): string {
  return encodeURIComponent(String(id));
}
