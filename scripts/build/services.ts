/**
 * The production build of the services: each one bundled by esbuild into
 * services/<name>/dist/main.js (CommonJS, Node 20, linked source maps), the workspace libraries and
 * npm dependencies inlined, its migrations with it (they are modules main.ts imports), plus what it
 * reads from disk at run time (the gateway's dashboard, its TypeScript bundled for the browser; the
 * API reference's redoc bundle; iconv-lite's double-byte tables: trim-bundle.ts), and in
 * dist/node_modules only the packages that cannot be bundled (native addons) with what they need.
 * dist/ is self-contained: copied anywhere, `node --enable-source-maps dist/main.js` runs it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SERVICES, SERVICE_NAMES, type ServiceName } from '@mf/fleet';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import {
  DASHBOARD_STATIC_FILES,
  dashboardBundleOptions,
} from '../../services/gateway/src/console/dashboard-ui/bundle-options';
import { oneMimeDb } from './one-mime-db';
import { productionSwaps } from './production-swaps';
import { copyPackages } from './packages';
import { trimSourceMap } from './sourcemap';
import { trimBundle } from './trim-bundle';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export { SERVICE_NAMES, type ServiceName };

/** The containers' health probe, in every service's dist as probe.js (libs/runtime/src/probe-cli.ts). */
const PROBE_ENTRY = '../../libs/runtime/src/probe-cli.ts';

/** Entry points per service (output name -> source under services/<name>/). */
const ENTRIES: Record<ServiceName, Record<string, string>> = {
  gateway: { main: 'src/main.ts', admin: 'src/admin/cli.ts', probe: PROBE_ENTRY },
  billing: { main: 'src/main.ts', probe: PROBE_ENTRY },
  jobs: { main: 'src/main.ts', probe: PROBE_ENTRY },
  'editor-agent': { main: 'src/main.ts', probe: PROBE_ENTRY },
  'export-renderer': { main: 'src/main.ts', probe: PROBE_ENTRY },
  'webhook-dispatcher': { main: 'src/main.ts', probe: PROBE_ENTRY },
};

/**
 * Packages loaded at run time from dist/node_modules: native addons esbuild cannot inline, and
 * tracing's. The OpenTelemetry SDK and instrumentations load only when tracing is on (nothing of
 * them sits in main.js, whose whole source V8 keeps in the heap); amqplib is required from disk so
 * its instrumentation can reach the internal files it patches (libs/tracing/src/sdk.ts).
 */
export const RUNTIME_PACKAGES = [
  '@node-rs/argon2',
  'amqplib',
  '@opentelemetry/sdk-node',
  '@opentelemetry/instrumentation-amqplib',
  '@opentelemetry/instrumentation-express',
  '@opentelemetry/instrumentation-http',
  '@opentelemetry/instrumentation-pg',
];

/**
 * Optional requires that never run in this fleet, left unresolved: knex's other SQL drivers (it
 * loads only the client it is configured with: pg), pg's native binding, the optional ffmpeg
 * packages @mf/media looks for before falling back to the system's ffmpeg, and the redoc package
 * (the gateway's dist carries redoc's standalone bundle instead, see ASSETS).
 */
const NEVER_LOADED = [
  'sqlite3',
  'better-sqlite3',
  'mysql',
  'mysql2',
  'mariadb',
  'mariadb/*',
  'oracledb',
  'tedious',
  'pg-query-stream',
  'pg-native',
  'ffmpeg-static',
  'ffprobe-static',
  '@ffprobe-installer/ffprobe',
  'redoc/package.json',
  // The gateway bundles the dashboard itself only when run from source (dashboard-ui/source-bundle.ts).
  'esbuild',
];

interface Asset {
  /** A path under the service directory, or [package, path inside it]. */
  from: string | [string, string];
  /** Where it goes under dist/. */
  to: string;
}

/** Files the service reads from disk next to its code (the code looks beside itself first). */
const ASSETS: Partial<Record<ServiceName, Asset[]>> = {
  gateway: [
    ...DASHBOARD_STATIC_FILES.map((file) => ({ from: path.join('dashboard', file), to: path.join('dashboard', file) })),
    { from: ['redoc', 'bundles/redoc.standalone.js'], to: 'redoc.standalone.js' },
  ],
};

/** How a Node program is bundled here: one CommonJS file for Node 20 with a linked source map. */
export const NODE_BUNDLE: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Linked maps of our own code only (sourcemap.ts says why): stack traces name the .ts files.
  sourcemap: 'linked',
  // Stack traces need the mappings, not the sources: smaller maps, no sources in the image.
  sourcesContent: false,
  // V8 keeps a script's whole source in the heap, and one character above U+00FF (an em dash in a
  // library's comment) makes it a two-byte string: 8-13 MiB per service. Without comments and
  // indentation the bundle is ASCII (esbuild escapes the rest) and a third smaller. Identifiers
  // stay as written, so frames in library code keep their function names.
  minifyWhitespace: true,
};

export interface BuiltService {
  name: ServiceName;
  dist: string;
  /** Bytes of each output file (main.js, admin.js, ...), source maps excluded. */
  bundles: Record<string, number>;
  /** Packages copied into dist/node_modules (name@version). */
  packages: string[];
  /** How many source files esbuild read into the bundles. */
  inputs: number;
}

export function serviceDir(name: ServiceName): string {
  return path.join(REPO_ROOT, 'services', name);
}

/**
 * Builds one service into services/<name>/dist (replaced whole). `testHooks` keeps the modules that
 * the production build swaps for their `.production.ts` stand-ins (production-swaps.ts): a build
 * for tests that inject faults.
 */
export async function buildService(
  name: ServiceName,
  outDir = path.join(serviceDir(name), 'dist'),
  opts: { testHooks?: boolean } = {},
): Promise<BuiltService> {
  const dir = serviceDir(name);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const entryPoints = Object.fromEntries(Object.entries(ENTRIES[name]).map(([out, src]) => [out, path.join(dir, src)]));
  const trim = trimBundle();
  const result = await build({
    entryPoints,
    outdir: outDir,
    ...NODE_BUNDLE,
    // Error classes and log lines that print constructor names keep them.
    keepNames: true,
    // The probe's fallback where PORT is not set (the image's HEALTHCHECK serves all six services).
    define: { SERVICE_DEFAULT_PORT: String(SERVICES.find((s) => s.name === name)!.port) },
    external: [...RUNTIME_PACKAGES, ...NEVER_LOADED],
    plugins: [
      ...(opts.testHooks ? [] : [productionSwaps()]),
      oneMimeDb(path.join(REPO_ROOT, 'libs', 'http')),
      trim.plugin,
    ],
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: REPO_ROOT,
  });
  if (result.warnings.length) {
    throw new Error(
      `${name}: esbuild warnings:\n${result.warnings.map((w) => `  ${w.text} (${w.location?.file}:${w.location?.line})`).join('\n')}`,
    );
  }
  for (const out of Object.keys(entryPoints))
    trimSourceMap(path.join(outDir, `${out}.js.map`), (source) => !source.includes('node_modules/'));
  // CommonJS whatever a parent directory's package.json says.
  fs.writeFileSync(
    path.join(outDir, 'package.json'),
    `${JSON.stringify({ name: `@mf/${name}-dist`, private: true, type: 'commonjs' }, null, 2)}\n`,
  );
  for (const asset of ASSETS[name] ?? []) copyAsset(dir, outDir, asset);
  if (name === 'gateway') await buildDashboard(dir, outDir);
  trim.copyFiles(outDir);
  const packages = copyPackages(usedRuntimePackages(result.metafile), path.join(outDir, 'node_modules'));
  const bundles = Object.fromEntries(
    Object.keys(entryPoints).map((out) => [`${out}.js`, fs.statSync(path.join(outDir, `${out}.js`)).size]),
  );
  return { name, dist: outDir, bundles, packages, inputs: Object.keys(result.metafile.inputs).length };
}

/**
 * The runtime packages the bundles actually import (a service that never hashes a password gets no
 * argon2), each with the directory of a source file that imports it: node_modules is searched from
 * there, as pnpm gives each package only its own dependencies.
 */
function usedRuntimePackages(meta: Metafile): { name: string; fromDir: string }[] {
  const importers = new Map<string, string>();
  for (const [input, { imports }] of Object.entries(meta.inputs)) {
    for (const imp of imports) {
      const name = RUNTIME_PACKAGES.find((p) => imp.path === p || imp.path.startsWith(`${p}/`));
      if (imp.external && name && !importers.has(name)) importers.set(name, path.dirname(path.join(REPO_ROOT, input)));
    }
  }
  return [...importers].map(([name, fromDir]) => ({ name, fromDir }));
}

/** The dashboard's TypeScript bundled into dist/dashboard/app.js, beside its page and styles. */
async function buildDashboard(serviceRoot: string, outDir: string): Promise<void> {
  const result = await build(
    dashboardBundleOptions(path.join(serviceRoot, 'dashboard'), path.join(outDir, 'dashboard')),
  );
  if (result.warnings.length || result.errors.length)
    throw new Error(`dashboard: esbuild: ${[...result.errors, ...result.warnings].map((w) => w.text).join('; ')}`);
}

function copyAsset(serviceRoot: string, outDir: string, asset: Asset): void {
  const from =
    typeof asset.from === 'string'
      ? path.join(serviceRoot, asset.from)
      : path.join(
          path.dirname(require.resolve(`${asset.from[0]}/package.json`, { paths: [serviceRoot] })),
          asset.from[1],
        );
  if (!fs.existsSync(from)) throw new Error(`asset ${from} does not exist`);
  fs.cpSync(from, path.join(outDir, asset.to), { recursive: true, dereference: true });
}
