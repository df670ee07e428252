/**
 * Test hooks stay out of the production build: a module with a `.production.ts` sibling (jobs'
 * faults.ts, the self-kill switch the fault suite uses) is replaced by that sibling in the bundle.
 * Tests run the sources (or a build made with `testHooks`), so they keep the real module.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'esbuild';

export function productionSwaps(): Plugin {
  return {
    name: 'production-swaps',
    setup(build) {
      // Relative imports of our own code only: packages never have such siblings.
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.resolveDir.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const sibling = path.join(args.resolveDir, `${args.path.replace(/\.ts$/, '')}.production.ts`);
        return fs.existsSync(sibling) ? { path: sibling } : undefined;
      });
    },
  };
}
