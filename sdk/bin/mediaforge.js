#!/usr/bin/env node
// Launcher of the mediaforge CLI (sdk/src/cli.ts): runs it with `node --import tsx`, tsx being
// resolved from here up to the repository root (a root devDependency), with the same arguments.
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');

const cli = path.join(__dirname, '..', 'src', 'cli.ts');
let tsx;
try {
  tsx = require.resolve('tsx', { paths: [path.join(__dirname, '..'), path.join(__dirname, '..', '..'), process.cwd()] });
} catch {
  process.stderr.write('mediaforge: tsx not found; install the workspace (pnpm install) or run `node --import tsx sdk/src/cli.ts`\n');
  process.exit(1);
}
// --import needs a URL (or a specifier) for the loader; a file URL works from any cwd.
const { pathToFileURL } = require('node:url');
const child = spawn(process.execPath, ['--import', pathToFileURL(tsx).href, cli, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
