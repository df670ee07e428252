/** Hosts a native client listens on (RFC 8252 §7.3): plain http is safe there, nowhere else. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;

/**
 * Why a redirect URI may not be registered, or null when it may: https anywhere, http on a
 * loopback host only; no fragment (RFC 6749 §3.1.2), no user info (it would show in the consent page
 * as something it is not).
 */
export function redirectUriProblem(raw: string): string | null {
  if (raw.length > MAX_URI_LENGTH) return `redirect URI longer than ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `not a URL: ${raw}`;
  }
  if (url.hash || raw.includes('#')) return `redirect URI must not have a fragment: ${raw}`;
  if (url.username || url.password) return `redirect URI must not carry credentials: ${raw}`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return `redirect URI must be https, or http on a loopback host (localhost, 127.0.0.1, [::1]): ${raw}`;
}

/** The first problem of a client's redirect URI list, or null when all of them are acceptable. */
export function redirectUrisProblem(uris: string[]): string | null {
  if (uris.length === 0) return 'at least one redirect URI is required';
  if (uris.length > MAX_REDIRECT_URIS) return `at most ${MAX_REDIRECT_URIS} redirect URIs`;
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return problem;
  }
  return null;
}
