// Hash routes (#/keys/12): the server only ever serves index.html, so no server routes to keep in step.

/** The path of the current hash ("#/keys/12" -> "/keys/12"), or null for a plain anchor like "#main". */
export function currentPath(hash = window.location.hash) {
  if (!hash || hash === '#') return '/';
  if (!hash.startsWith('#/')) return null;
  return hash.slice(1).split('?')[0].replace(/\/+$/, '') || '/';
}

/** The first route whose pattern ("/keys/:id") matches, with its decoded params. */
export function matchRoute(routes, path) {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params = {};
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

export function navigate(hash) {
  if (window.location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else window.location.hash = hash;
}
