import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, SERVICES, serviceBuildEntry } from '@mf/fleet';

const run = promisify(execFile);

/** What the production build reads: the services' and libraries' sources, the build script, the lockfile. */
const INPUT_DIRS = ['services', 'libs', 'scripts/build'];
const SKIP = new Set(['node_modules', 'dist', 'test', 'coverage']);

function newestMtime(dir: string): number {
  let newest = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (SKIP.has(e.name)) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (e.isFile()) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** The oldest build output (each service's main.js and the gateway's admin CLI), or 0 when one is missing. */
function oldestBuild(): number {
  const outputs = [
    ...SERVICES.map((s) => serviceBuildEntry(s.name)),
    path.join(REPO_ROOT, 'services/gateway/dist/admin.js'),
  ];
  let oldest = Infinity;
  for (const file of outputs) {
    try {
      oldest = Math.min(oldest, fs.statSync(file).mtimeMs);
    } catch {
      return 0;
    }
  }
  return oldest;
}

/** True when some input of the production build is newer than its output (or there is none yet). */
export function distIsStale(): boolean {
  const newestInput = Math.max(
    ...INPUT_DIRS.map((d) => newestMtime(path.join(REPO_ROOT, d))),
    fs.statSync(path.join(REPO_ROOT, 'pnpm-lock.yaml')).mtimeMs,
  );
  return newestInput > oldestBuild();
}

/** Runs `npm run build:dist` (all six services) unless every service's dist/ is newer than its inputs. */
export async function ensureDist(): Promise<'built' | 'current'> {
  if (!distIsStale()) return 'current';
  await run(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'scripts/build/main.ts')], {
    cwd: REPO_ROOT,
    timeout: 600_000,
  });
  return 'built';
}
