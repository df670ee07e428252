import { api } from '../api.js';
import { h } from '../dom.js';
import { announce, field, pageHeading, withBusy } from '../ui.js';
import type { DashboardSession, DashboardUser } from '../contracts.js';
import type { PageContext } from '../page.js';

const MIN_PASSWORD = 10; // the API's rule (docs/dashboard-api.md)

interface AuthFormOptions {
  title: string;
  submitLabel: string;
  endpoint: '/signin' | '/signup';
  passwordAutocomplete: string;
  passwordHint?: string;
  welcome: (user: DashboardUser) => string;
  footer: HTMLElement;
}

function authForm(
  ctx: PageContext,
  { title, submitLabel, endpoint, passwordAutocomplete, passwordHint, welcome, footer }: AuthFormOptions,
): void {
  const email = h('input', {
    type: 'email',
    name: 'email',
    autocomplete: 'username',
    required: true,
    maxlength: '320',
  });
  const password = h('input', {
    type: 'password',
    name: 'password',
    autocomplete: passwordAutocomplete,
    required: true,
    minlength: passwordHint ? String(MIN_PASSWORD) : null,
  });
  const submit = h('button', { type: 'submit', class: 'primary' }, submitLabel);
  const form = h(
    'form',
    {
      class: 'card auth-form',
      'aria-label': title,
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        const result = await withBusy(submit, () =>
          api.post<DashboardSession>(endpoint, { email: email.value.trim(), password: password.value }),
        );
        if (!result) {
          password.focus();
          return;
        }
        ctx.setSession(result);
        announce(welcome(result.user));
        ctx.afterSignIn();
      },
    },
    field('Email', email),
    field('Password', password, passwordHint),
    h('div', { class: 'actions' }, submit),
  );
  ctx.root.classList.add('auth-page');
  ctx.root.append(pageHeading(title), form, footer);
  if (!document.activeElement || document.activeElement === document.body) email.focus();
}

/** The hash's query (an OAuth return_to), carried between sign-in and sign-up. */
function carriedQuery(): string {
  const hash = window.location.hash;
  const q = hash.indexOf('?');
  return q === -1 ? '' : hash.slice(q);
}

export function signinPage(ctx: PageContext): void {
  authForm(ctx, {
    title: 'Sign in',
    submitLabel: 'Sign in',
    endpoint: '/signin',
    passwordAutocomplete: 'current-password',
    welcome: () => 'Welcome back.',
    footer: h('p', null, 'No account yet? ', h('a', { href: `#/signup${carriedQuery()}` }, 'Create one'), '.'),
  });
}

export function signupPage(ctx: PageContext): void {
  authForm(ctx, {
    title: 'Create an account',
    submitLabel: 'Sign up',
    endpoint: '/signup',
    passwordAutocomplete: 'new-password',
    passwordHint: `At least ${MIN_PASSWORD} characters.`,
    welcome: (user) => `Welcome, ${user.email}. Your account is ready.`,
    footer: h('p', null, 'Already have an account? ', h('a', { href: `#/signin${carriedQuery()}` }, 'Sign in'), '.'),
  });
}
