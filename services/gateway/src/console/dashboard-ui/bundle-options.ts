import path from 'node:path';
import type { BuildOptions } from 'esbuild';

/** The dashboard's browser code: TypeScript under dashboard/src, one ES module for the page. */
export const DASHBOARD_ENTRY = path.join('src', 'app.ts');

/** The files served as they are, beside the bundle. */
export const DASHBOARD_STATIC_FILES = ['index.html', 'style.css'] as const;

/**
 * How the dashboard is bundled, the same from source and in the production build: app.ts and
 * what it imports into one app.js (index.html loads it as a module), for the browsers of today.
 * Type-only imports of @mf/contracts vanish: nothing of the server reaches the page but the
 * dependency-free constants it imports by file (the model ids).
 */
export function dashboardBundleOptions(dashboardDir: string, outdir: string): BuildOptions {
  return {
    entryPoints: { app: path.join(dashboardDir, DASHBOARD_ENTRY) },
    outdir,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    sourcemap: 'linked',
    // The map points into the sources by path; the page never needs their text.
    sourcesContent: false,
    logLevel: 'silent',
  };
}
