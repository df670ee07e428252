/**
 * One copy of mime-db per bundle. Express 5 brings mime-types 3 (mime-db 1.54) and axios's
 * form-data mime-types 2 (mime-db 1.52): two copies of the same JSON table, about 180 KiB of heap
 * each in every service that bundles both. Every `mime-db` import resolves to express's: the
 * newer table in the same format, which mime-types 2 reads as it reads its own.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'esbuild';

/** `packageDir`: a workspace package that depends on express (libs/http). */
export function oneMimeDb(packageDir: string): Plugin {
  const fromPackage = createRequire(path.join(packageDir, 'package.json'));
  const fromExpress = createRequire(fromPackage.resolve('express/package.json'));
  const fromMimeTypes = createRequire(fromExpress.resolve('mime-types/package.json'));
  const mimeDb = fromMimeTypes.resolve('mime-db');
  return {
    name: 'one-mime-db',
    setup(build) {
      build.onResolve({ filter: /^mime-db$/ }, () => ({ path: mimeDb }));
    },
  };
}
