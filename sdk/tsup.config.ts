// The published build of @mediaforge/sdk (npm run build in sdk/, or npm pack, which runs it):
// the library as ESM (dist/index.mjs) and CommonJS (dist/index.js) with type declarations for
// both, and the mediaforge CLI (dist/cli.js, CommonJS, with its shebang). Node 20, no dependencies.
import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    tsconfig: 'tsconfig.build.json',
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['cjs'],
    sourcemap: true,
    target: 'node20',
    platform: 'node',
    tsconfig: 'tsconfig.build.json',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
