import type { Response } from 'express';
import { DEFAULT_SCOPE, type Scope } from '../../core/auth/scopes';
import { SCOPE_DESCRIPTIONS } from '../../core/oauth/scopes';

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

export interface ConsentView {
  /** As registered: chosen by whoever registered the client, so always escaped. */
  clientName: string | undefined;
  clientId: string;
  userEmail: string;
  redirectUri: string;
  offered: readonly Scope[];
  csrfToken: string;
  /** The authorization request, posted back with the decision so it is validated again. */
  request: Record<string, string | undefined>;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <title>${escapeHtml(title)} · Mediaforge</title>
  <link rel="stylesheet" href="/dashboard/style.css">
  <link rel="icon" href="data:,">
</head>
<body>
  <header class="site-header"><a class="brand" href="/dashboard/">Mediaforge</a></header>
  <main id="main" tabindex="-1"><div class="page auth-page">
${body}
  </div></main>
</body>
</html>
`;
}

function hidden(name: string, value: string | undefined): string {
  return value === undefined
    ? ''
    : `      <input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">\n`;
}

function scopeRow(scope: Scope): string {
  const id = `scope-${scope.replace(/[^a-z-]/g, '-')}`;
  const label = `<label for="${id}"><code>${escapeHtml(scope)}</code> <span class="hint">${escapeHtml(SCOPE_DESCRIPTIONS[scope])}</span></label>`;
  // A disabled checkbox is not submitted: the hidden field carries models:read, which is always granted.
  if (scope === DEFAULT_SCOPE) {
    return `        <div class="check"><input type="checkbox" id="${id}" checked disabled>${hidden('scope_granted', scope).trim()}${label}</div>\n`;
  }
  return `        <div class="check"><input type="checkbox" id="${id}" name="scope_granted" value="${escapeHtml(scope)}" checked>${label}</div>\n`;
}

/** The consent page: who asks, for what, where the answer goes; Approve and Deny post back with the CSRF token. */
export function consentPage(v: ConsentView): string {
  const name = v.clientName?.trim() ? v.clientName.trim() : 'An unnamed application';
  const target = new URL(v.redirectUri);
  const fields = Object.entries(v.request)
    .map(([k, value]) => hidden(k, value))
    .join('');
  return page(
    `Authorize ${name}`,
    `    <h1 tabindex="-1">Authorize ${escapeHtml(name)}</h1>
    <p class="lede"><strong>${escapeHtml(name)}</strong> wants to use your Mediaforge account (<strong>${escapeHtml(v.userEmail)}</strong>).
    It will act through an API key named <code>OAuth: ${escapeHtml(name)}</code>, with the access you leave checked. Its use counts against your credits and rate limit.</p>
    <form class="card" method="post" action="/oauth/authorize" aria-label="Authorization">
${fields}${hidden('csrf_token', v.csrfToken)}      <fieldset>
        <legend>Access</legend>
${v.offered.map(scopeRow).join('')}      </fieldset>
      <p class="muted">After your answer the browser returns to <code>${escapeHtml(target.origin + target.pathname)}</code>. Client id: <code>${escapeHtml(v.clientId)}</code>.</p>
      <p class="muted">You can revoke this access at any time by revoking the key under API keys in the dashboard.</p>
      <div class="actions">
        <button type="submit" class="primary" name="decision" value="approve">Approve</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </div>
    </form>`,
  );
}

/** A plain page for an authorization that cannot go on (never a redirect to a client). */
export function messagePage(title: string, text: string): string {
  return page(title, `    <h1 tabindex="-1">${escapeHtml(title)}</h1>\n    <p>${escapeHtml(text)}</p>`);
}

/**
 * Headers of every page and redirect of the authorization endpoint: no framing (clickjacking on
 * Approve), no scripts at all, no Referer carrying the request to the client. Forms may post here
 * and the answer may redirect to the client (Chrome applies form-action to that redirect too).
 * same-origin, not no-referrer: under no-referrer Chrome sends `Origin: null` with the form's post,
 * which the dashboard's Origin rule refuses.
 */
export function pageHeaders(res: Response, redirectUri: string | undefined): void {
  const formTargets = ["'self'"];
  if (redirectUri) formTargets.push(new URL(redirectUri).origin);
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self'; img-src 'self' data:; form-action ${formTargets.join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
}
