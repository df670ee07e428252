/**
 * Code the bundles carry but an idle service never runs, kept out of main.js: V8 keeps a script's
 * whole source in the heap, byte for byte, whether its functions ever run or not.
 *
 * - iconv-lite's double-byte tables (395 KiB of JSON: Shift_JIS, EUC-JP, GBK, GB18030, Big5,
 *   EUC-KR), which it requires only when it first decodes such a charset. They ship beside the
 *   bundle (dist/iconv-lite-tables/) and load from there, on the same first use as before.
 * - knex's dialects other than postgres (210 KiB): knex requires only the configured client's, and
 *   the other clients' drivers are not bundled either (services.ts, NEVER_LOADED), so a service
 *   configured with one fails at start-up as before, naming the module it cannot find.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'esbuild';

/** Where the tables go under dist/ (the bundle requires them relative to itself). */
export const ICONV_TABLES_DIR = 'iconv-lite-tables';

export interface TrimBundle {
  plugin: Plugin;
  /** Copies the files the bundles now load from disk into `outDir` (after the build). */
  copyFiles: (outDir: string) => void;
}

export function trimBundle(): TrimBundle {
  const tableDirs = new Set<string>();
  const plugin: Plugin = {
    name: 'trim-bundle',
    setup(build) {
      build.onResolve({ filter: /^\.\/tables\/[\w-]+\.json$/ }, (args) => {
        if (!/[\\/]iconv-lite[\\/]encodings$/.test(args.resolveDir)) return undefined;
        tableDirs.add(path.join(args.resolveDir, 'tables'));
        return { path: `./${ICONV_TABLES_DIR}/${path.basename(args.path)}`, external: true };
      });
      build.onResolve({ filter: /^\.\/[\w-]+$/ }, (args) => {
        if (!/[\\/]knex[\\/]lib[\\/]dialects$/.test(args.resolveDir) || args.path === './postgres') return undefined;
        return { path: args.path, external: true };
      });
    },
  };
  const copyFiles = (outDir: string): void => {
    if (tableDirs.size > 1) throw new Error(`two copies of iconv-lite's tables: ${[...tableDirs].join(', ')}`);
    for (const dir of tableDirs)
      fs.cpSync(dir, path.join(outDir, ICONV_TABLES_DIR), { recursive: true, dereference: true });
  };
  return { plugin, copyFiles };
}
