// Hash routes (#/keys/12): the server only ever serves index.html, so no server routes to keep in step.

export interface Route {
  /** "/keys/:id": literal segments and :params. */
  path: string;
}

/** The path of the current hash ("#/keys/12" -> "/keys/12"), or null for a plain anchor like "#main". */
export function currentPath(hash: string = window.location.hash): string | null {
  if (!hash || hash === '#') return '/';
  if (!hash.startsWith('#/')) return null;
  return hash.slice(1).split('?')[0].replace(/\/+$/, '') || '/';
}

/** The first route whose pattern ("/keys/:id") matches, with its decoded params. */
export function matchRoute<R extends Route>(
  routes: readonly R[],
  path: string,
): { route: R; params: Record<string, string> } | null {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      if (pattern[i].startsWith(':')) {
        try {
          params[pattern[i].slice(1)] = decodeURIComponent(parts[i]);
        } catch {
          ok = false;
        }
      } else {
        ok = pattern[i] === parts[i];
      }
    }
    if (ok) return { route, params };
  }
  return null;
}

export function navigate(hash: string): void {
  if (window.location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else window.location.hash = hash;
}
