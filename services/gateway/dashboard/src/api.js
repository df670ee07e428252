// The dashboard's only way to the server: JSON to /dashboard/api on this origin, with the session
// cookie. State-changing calls carry the session's CSRF token (docs/dashboard-api.md).

const BASE = '/dashboard/api';
const SAFE_METHODS = new Set(['GET', 'HEAD']);

let csrfToken = null;
let onSessionLost = () => {};

export class ApiError extends Error {
  constructor(status, body) {
    super(messageOf(status, body));
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

function messageOf(status, body) {
  if (status === 0) return 'Could not reach the server. Check your connection and try again.';
  const b = body && typeof body === 'object' ? body : {};
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

export function setCsrfToken(token) {
  csrfToken = token || null;
}

/** Called when the server says the session is gone (401 on anything but sign-in and sign-up). */
export function onUnauthorized(handler) {
  onSessionLost = handler;
}

export async function request(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (!SAFE_METHODS.has(method) && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let res;
  try {
    res = await fetch(BASE + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, null);
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { error: `The server answered HTTP ${res.status} with something that is not JSON.` };
    }
  }
  if (!res.ok) {
    if (res.status === 401 && path !== '/signin' && path !== '/signup') onSessionLost();
    throw new ApiError(res.status, data);
  }
  return data;
}

export const api = {
  get: (path) => request('GET', path),
  post: (path, body) => request('POST', path, body),
  put: (path, body) => request('PUT', path, body),
  del: (path) => request('DELETE', path),
};

/** A query string from an object, leaving out empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** A path segment from an id taken from the URL or the API. */
export function seg(id) {
  return encodeURIComponent(String(id));
}
