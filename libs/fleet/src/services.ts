import path from 'node:path';

/**
 * The fleet, in start order: the one list of the services (the dev start, the tests' fleets, the
 * production build and the deploy tests all read it). Ports are each service's default.
 */
export const SERVICES = [
  { name: 'billing', port: 8081 },
  { name: 'jobs', port: 8082 },
  { name: 'editor-agent', port: 8083 },
  { name: 'export-renderer', port: 8084 },
  { name: 'webhook-dispatcher', port: 8085 },
  { name: 'gateway', port: 8080 },
] as const;

export type ServiceName = (typeof SERVICES)[number]['name'];

/** The services' names, in start order. */
export const SERVICE_NAMES: readonly ServiceName[] = SERVICES.map((s) => s.name);

/** The repository root (libs/fleet/src -> ../../..). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

export function serviceEntry(name: ServiceName): string {
  return path.join(REPO_ROOT, 'services', name, 'src', 'main.ts');
}

/**
 * How node runs a production build (the images' CMD, the services' npm start): source maps for
 * stack traces that name our .ts files, and young-generation semi-spaces capped at 2 MiB. V8
 * grows them to 16 MiB each under the startup's allocations and keeps them (up to 32 MiB of RSS
 * per idle service); scavenges of a 2 MiB space stay short (the memory bench, bench/README.md).
 */
export const COMPILED_NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=2'];

/**
 * The environment the images add (Dockerfile, runtime stage): glibc's malloc at two arenas
 * instead of eight per core, so V8's and libuv's worker threads do not each keep an arena's
 * touched pages (3-5 MiB of an idle service's RSS); and a fixed mmap threshold of 128 KiB (glibc's
 * default start), so blocks that large always get their own mapping and go back to the system when
 * freed. Left dynamic, glibc raises the threshold (up to 32 MiB) each time such a block is freed,
 * and the parser's and compiler's big start-up buffers then stay in the heap arena, resident (3-7
 * MiB of an idle service; the memory bench, bench/README.md).
 */
export const COMPILED_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

/** The production build's entry point (npm run build:dist). */
export function serviceBuildEntry(name: ServiceName): string {
  return path.join(REPO_ROOT, 'services', name, 'dist', 'main.js');
}
