import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { REPO_ROOT } from '@mf/fleet';

let bundle: string | undefined;

/**
 * node's arguments that start the SDK's CLI from its sources (sdk/src/cli.ts; the published build is
 * tested in sdk/package.e2e.test.ts): bundled by esbuild once per test process, since tsx compiling
 * the sources at every start costs about four times the CPU of the start itself.
 */
export function sdkCli(): string[] {
  if (!bundle) {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mf-sdk-cli-')), 'cli.js');
    buildSync({
      entryPoints: [path.join(REPO_ROOT, 'sdk/src/cli.ts')],
      outfile: out,
      bundle: true,
      platform: 'node',
      target: 'node20',
      sourcemap: 'inline',
      logLevel: 'error',
    });
    bundle = out;
  }
  return ['--enable-source-maps', bundle];
}
