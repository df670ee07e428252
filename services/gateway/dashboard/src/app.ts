// Entry point: session bootstrap, header, and the hash router that renders one page at a time.
import { api, ApiError, onUnauthorized, setCsrfToken } from './api.js';
import { h } from './dom.js';
import { currentPath, matchRoute, navigate } from './router.js';
import { announce, clearErrors, clearStaleStatus, pageHeading, showError } from './ui.js';
import { signinPage, signupPage } from './pages/auth.js';
import { overviewPage } from './pages/overview.js';
import { keysPage } from './pages/keys.js';
import { keyPage } from './pages/key.js';
import { jobsPage } from './pages/jobs.js';
import { jobPage } from './pages/job.js';
import { playgroundPage } from './pages/playground.js';
import { projectsPage } from './pages/projects.js';
import { projectPage } from './pages/project.js';
import { adminPage } from './pages/admin.js';
import { usagePage } from './pages/usage.js';
import type { DashboardReplies, DashboardSession } from './contracts.js';
import type { Page, PageContext } from './page.js';

interface AppRoute {
  path: string;
  title: string;
  page: Page;
  /** Open without a session (sign-in, sign-up). */
  public?: boolean;
  /** The nav link marked current. */
  nav?: string;
  admin?: boolean;
}

const routes: AppRoute[] = [
  { path: '/signin', title: 'Sign in', page: signinPage, public: true },
  { path: '/signup', title: 'Sign up', page: signupPage, public: true },
  { path: '/', title: 'Overview', page: overviewPage, nav: 'overview' },
  { path: '/keys', title: 'API keys', page: keysPage, nav: 'keys' },
  { path: '/keys/:id', title: 'API key', page: keyPage, nav: 'keys' },
  { path: '/usage', title: 'Usage', page: usagePage, nav: 'usage' },
  { path: '/jobs', title: 'Jobs', page: jobsPage, nav: 'jobs' },
  { path: '/jobs/:id', title: 'Job', page: jobPage, nav: 'jobs' },
  { path: '/playground', title: 'Playground', page: playgroundPage, nav: 'playground' },
  { path: '/projects', title: 'Projects', page: projectsPage, nav: 'projects' },
  { path: '/projects/:id', title: 'Project', page: projectPage, nav: 'projects' },
  { path: '/admin', title: 'Admin', page: adminPage, nav: 'admin', admin: true },
];

// index.html has every element looked up by id here.
const byId = (id: string): HTMLElement => document.getElementById(id)!;
const main = byId('main');
let session: DashboardSession | null = null;
let current: { root: HTMLElement; cleanups: (() => void)[] } | null = null;
let returnTo: string | null = null; // the page asked for before signing in
let firstRender = true;
let flash: string | null = null; // an error to show on the next page (clearing errors on navigation would hide it)

/**
 * The authorization request to go back to after signing in: /oauth/authorize sends a signed-out
 * browser to #/signin?return_to=/oauth/authorize?... (docs/oauth.md). Only that same-origin path is
 * followed, so the parameter cannot send anyone elsewhere.
 */
function oauthReturnTo(): string | null {
  const hash = window.location.hash;
  const q = hash.indexOf('?');
  if (q === -1) return null;
  const target = new URLSearchParams(hash.slice(q + 1)).get('return_to');
  return target && target.startsWith('/oauth/authorize?') ? target : null;
}

function setSession(value: DashboardSession | null): void {
  session = value?.user ? { user: value.user, csrf_token: value.csrf_token } : null;
  setCsrfToken(session ? session.csrf_token : null);
  renderHeader();
}

function renderHeader(): void {
  const nav = byId('nav');
  const account = byId('account');
  nav.hidden = !session;
  account.hidden = !session;
  byId('nav-admin').hidden = session?.user.role !== 'admin';
  byId('account-email').textContent = session ? session.user.email : '';
}

function markNav(navKey: string | null | undefined): void {
  for (const link of document.querySelectorAll<HTMLElement>('#nav a[data-nav]')) {
    if (link.dataset.nav === navKey) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function teardown(): void {
  if (!current) return;
  for (const fn of current.cleanups) {
    try {
      fn();
    } catch {
      /* a page's cleanup must not stop the next page */
    }
  }
  current.root.remove();
  current = null;
}

function render(): void {
  const path = currentPath();
  if (path === null) return; // an in-page anchor, not a route
  const match = matchRoute(routes, path);
  if (match && !match.route.public && !session) {
    returnTo = window.location.hash;
    navigate('#/signin');
    return;
  }
  if (match && match.route.public && session) {
    const oauth = oauthReturnTo();
    if (oauth) window.location.assign(oauth);
    else navigate('#/');
    return;
  }
  teardown();
  clearErrors();
  clearStaleStatus();
  if (flash) {
    showError(flash);
    flash = null;
  }
  // data-path says which page is on screen (styles and browser tests can rely on it).
  const root = h('div', { class: 'page', dataset: { path } });
  main.append(root);
  const page: { root: HTMLElement; cleanups: (() => void)[] } = { root, cleanups: [] };
  current = page;
  markNav(match ? match.route.nav : null);
  document.title = `${match ? match.route.title : 'Not found'} · Mediaforge`;

  const ctx: PageContext = {
    root,
    params: match ? match.params : {},
    session,
    setSession,
    navigate,
    /** Runs when the user leaves the page (stop polls and timers). */
    onCleanup: (fn) => page.cleanups.push(fn),
    /** False once the user has left: late answers must not act on the next page. */
    isCurrent: () => current === page,
    afterSignIn: () => {
      const oauth = oauthReturnTo();
      if (oauth) {
        window.location.assign(oauth);
        return;
      }
      const target = returnTo && returnTo !== '#/signin' && returnTo !== '#/signup' ? returnTo : '#/';
      returnTo = null;
      navigate(target);
    },
  };

  let result: void | Promise<void>;
  try {
    if (!match) result = notFound(ctx);
    else if (match.route.admin && session?.user.role !== 'admin') result = adminsOnly(ctx);
    else result = match.route.page(ctx);
  } catch (err) {
    result = Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }

  // Focus the new page's heading after a navigation, so keyboard and screen-reader users start there.
  if (!firstRender) {
    const heading = root.querySelector<HTMLElement>('h1');
    if (heading) heading.focus();
  }
  firstRender = false;
  Promise.resolve(result).catch((err: unknown) => {
    if (ctx.isCurrent()) showError(err);
  });
}

function notFound(ctx: PageContext): void {
  ctx.root.append(
    pageHeading('Page not found'),
    h('p', null, 'There is nothing at this address. ', h('a', { href: '#/' }, 'Go to the overview'), '.'),
  );
}

function adminsOnly(ctx: PageContext): void {
  ctx.root.append(
    pageHeading('Admins only'),
    h('p', null, 'This page is for administrators. Ask one to give your account the admin role.'),
  );
}

async function signOut(button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  try {
    await api.post<null>('/signout');
  } catch (err) {
    // A session that is already gone is signed out anyway.
    if (!(err instanceof ApiError) || err.status !== 401) {
      showError(err);
      return;
    }
  } finally {
    button.disabled = false;
  }
  setSession(null);
  navigate('#/signin');
  announce('You are signed out.');
}

async function boot(): Promise<void> {
  byId('skip-link').addEventListener('click', (event) => {
    // The hash is the router's: move focus without changing it.
    event.preventDefault();
    main.focus();
  });
  const signOutButton = byId('signout') as HTMLButtonElement;
  signOutButton.addEventListener('click', () => void signOut(signOutButton));
  onUnauthorized(() => {
    if (!session) return;
    setSession(null);
    returnTo = window.location.hash;
    flash = 'Your session has ended. Please sign in again.';
    navigate('#/signin');
  });
  try {
    setSession((await api.get<DashboardReplies['GET /session']>('/session')).session);
  } catch (err) {
    showError(err);
    setSession(null);
  }
  window.addEventListener('hashchange', render);
  render();
}

void boot();
