import { DASHBOARD_REPLIES, dashboardRouteOf, type DashboardRoute } from '../../libs/contracts/src';

/** The routes whose answers this test file's clients have checked against their contract. */
export const checkedDashboardRoutes = new Set<DashboardRoute>();

/**
 * A success answer must be what its contract says (@mf/contracts DASHBOARD_REPLIES), no field more
 * or less, as the public API's answers are checked against the OpenAPI document.
 */
function checkAgainstContract(method: string, path: string, status: number, body: unknown): void {
  if (status < 200 || status >= 300 || status === 204) return;
  const route = dashboardRouteOf(method, path);
  if (!route) throw new Error(`${method} ${path} answered ${status}, but no dashboard reply contract names it`);
  const { error } = DASHBOARD_REPLIES[route].validate(body, { convert: false, abortEarly: false });
  if (error) throw new Error(`${method} ${path} (${route}): the answer breaks its contract: ${error.message}`);
  checkedDashboardRoutes.add(route);
}

/** One cookie as the server set it: its value and its attributes, for tests to inspect. */
export interface SetCookieRecord {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
}

export function parseSetCookie(header: string): SetCookieRecord {
  const [pair, ...attrs] = header.split(';').map((s) => s.trim());
  const eq = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const a of attrs) {
    const i = a.indexOf('=');
    if (i === -1) attributes[a.toLowerCase()] = true;
    else attributes[a.slice(0, i).toLowerCase()] = a.slice(i + 1);
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}

export interface DashboardResponse {
  status: number;
  headers: Headers;
  // Bodies are arbitrary JSON that each test asserts field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  setCookies: SetCookieRecord[];
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the remembered CSRF token on writes (default true). */
  csrf?: boolean;
  /** The Origin header of writes (default: the gateway's own, as a browser on the dashboard sends). */
  origin?: string | null;
}

/**
 * A browser-like client of /dashboard/api: keeps the cookies the gateway sets (a cookie jar, with
 * Max-Age=0 deleting), remembers the CSRF token it is given, and sends Origin like a same-origin
 * page does.
 */
export class DashboardSession {
  readonly cookies = new Map<string, string>();
  csrfToken: string | undefined;

  constructor(private readonly baseUrl: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async call(method: string, path: string, opts: CallOptions = {}): Promise<DashboardResponse> {
    const write = !['GET', 'HEAD'].includes(method);
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (this.cookies.size) headers.cookie = this.cookieHeader;
    if (write && opts.csrf !== false && this.csrfToken) headers['x-csrf-token'] = this.csrfToken;
    const origin = opts.origin === undefined ? this.baseUrl : opts.origin;
    if (write && origin !== null) headers.origin = origin;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${this.baseUrl}/dashboard/api${path}`, { method, headers, body });
    const setCookies = res.headers.getSetCookie().map(parseSetCookie);
    for (const c of setCookies) {
      if (c.attributes['max-age'] === '0') this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text so a test can show it */
    }
    checkAgainstContract(method, path, res.status, parsed);
    const result = { status: res.status, headers: res.headers, body: parsed, setCookies };
    const csrf = (parsed as { csrf_token?: unknown } | null)?.csrf_token;
    if (res.ok && typeof csrf === 'string') this.csrfToken = csrf;
    return result;
  }

  get = (path: string, opts?: CallOptions) => this.call('GET', path, opts);
  post = (path: string, opts?: CallOptions) => this.call('POST', path, opts);
  put = (path: string, opts?: CallOptions) => this.call('PUT', path, opts);
  delete = (path: string, opts?: CallOptions) => this.call('DELETE', path, opts);

  async signUp(email: string, password: string): Promise<DashboardResponse> {
    return this.post('/signup', { body: { email, password } });
  }

  async signIn(email: string, password: string): Promise<DashboardResponse> {
    return this.post('/signin', { body: { email, password } });
  }
}
