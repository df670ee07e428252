/**
 * Copies npm packages and everything they depend on (dependencies, and the optional and peer
 * dependencies that are installed, e.g. a native addon's binary for this platform) out of pnpm's
 * node_modules/.pnpm into a flat node_modules directory, symlinks resolved. Two versions of one
 * package in that set fail the build rather than silently shadow each other.
 */
import fs from 'node:fs';
import path from 'node:path';

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The directory of `name` as Node would find it from `fromDir` (walking up node_modules), or null. */
export function findPackageDir(name: string, fromDir: string): string | null {
  let dir = fromDir;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function readManifest(dir: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
}

/**
 * What of a package a CommonJS require can load: not its type declarations and source maps (Node
 * would parse a map only to format a stack, at a cost in heap), nor the ES module builds that
 * OpenTelemetry's packages ship beside their CommonJS one (build/esm, build/esnext: 2/3 of their
 * size). A pnpm package directory holds the package only (its dependencies are siblings), so there
 * is no nested node_modules to copy either.
 */
function neededAtRunTime(relative: string): boolean {
  if (path.basename(relative) === 'node_modules') return false;
  if (/\.(map|d\.ts|d\.mts|d\.cts)$/.test(relative)) return false;
  return !/^build[\\/](esm|esnext)([\\/]|$)/.test(relative);
}

/**
 * Copies the packages (each resolved from its `fromDir`) and their dependency closure into
 * `destNodeModules`. Returns name@version of every package copied, sorted.
 */
export function copyPackages(packages: { name: string; fromDir: string }[], destNodeModules: string): string[] {
  const chosen = new Map<string, { dir: string; version: string }>();
  const visit = (name: string, from: string, optional: boolean): void => {
    // Type declarations some packages list as dependencies (the pg instrumentation): no use at run time.
    if (name.startsWith('@types/')) return;
    const dir = findPackageDir(name, from);
    if (!dir) {
      if (optional) return; // another platform's binary, not installed here
      throw new Error(`package ${name} is not installed (needed from ${from})`);
    }
    const manifest = readManifest(dir);
    const seen = chosen.get(name);
    if (seen) {
      if (seen.version !== manifest.version)
        throw new Error(`two versions of ${name} needed (${seen.version}, ${manifest.version}): cannot flatten`);
      return;
    }
    chosen.set(name, { dir, version: manifest.version });
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) visit(dep, dir, true);
    // A peer is the caller's to install (the OpenTelemetry packages' @opentelemetry/api): pnpm puts
    // the one chosen beside the package, and it has to be there at run time too.
    for (const dep of Object.keys(manifest.peerDependencies ?? {})) visit(dep, dir, true);
  };
  for (const { name, fromDir } of packages) visit(name, fromDir, false);

  for (const [name, { dir }] of chosen) {
    const dest = path.join(destNodeModules, name);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    // A pnpm package directory holds the package only (its dependencies are siblings), so this
    // copies no nested node_modules.
    fs.cpSync(dir, dest, {
      recursive: true,
      dereference: true,
      filter: (src) => neededAtRunTime(path.relative(dir, src)),
    });
  }
  return [...chosen].map(([name, { version }]) => `${name}@${version}`).sort();
}
