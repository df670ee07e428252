/**
 * Runs one benchmark, or all of them one after another, each in its own process (each starts and
 * stops its own fleet). Figures only: a bench never passes or fails on a figure; the exit code is
 * non-zero only when a bench could not run.
 *
 *   npm run bench -- <gateway|submit|pipeline|billing|memory|export|sse|webhooks|scale|all> [bench args]
 *   node --import tsx bench/run.ts <name> [bench args]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadAverage } from './lib/env';

const BENCHES = ['gateway', 'submit', 'pipeline', 'billing', 'memory', 'export', 'sse', 'webhooks', 'scale'] as const;
type BenchName = (typeof BENCHES)[number];

function runOne(name: BenchName, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, name, 'run.ts'), ...args], {
      stdio: 'inherit',
      cwd: path.resolve(__dirname, '..'),
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2);
  if (name !== 'all' && !(BENCHES as readonly string[]).includes(name ?? '')) {
    console.error(`usage: npm run bench -- <${[...BENCHES, 'all'].join('|')}> [args]`);
    return 2;
  }
  const names: BenchName[] = name === 'all' ? [...BENCHES] : [name as BenchName];
  const failed: string[] = [];
  const started = Date.now();
  for (const [i, bench] of names.entries()) {
    if (i > 0) console.log('');
    if (names.length > 1) console.log(`==== ${bench} (load average ${loadAverage()})`);
    const t = Date.now();
    const code = await runOne(bench, args);
    if (code !== 0) failed.push(bench);
    if (names.length > 1)
      console.log(
        `==== ${bench}: ${code === 0 ? 'done' : `could not run (exit ${code})`} in ${((Date.now() - t) / 1000).toFixed(0)} s`,
      );
  }
  if (names.length > 1)
    console.log(
      `\nall benches in ${((Date.now() - started) / 1000).toFixed(0)} s${failed.length ? `; could not run: ${failed.join(', ')}` : ''}; load average ${loadAverage()}`,
    );
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
