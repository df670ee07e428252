/**
 * npm run build:dist [-- <service> ...]: the production build of the services (all six by default)
 * into services/<name>/dist. See services.ts for what goes in.
 */
import { buildService, SERVICE_NAMES, type ServiceName } from './services';

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !(SERVICE_NAMES as readonly string[]).includes(a));
  if (unknown.length) {
    console.error(`unknown service ${unknown.join(', ')}; one of: ${SERVICE_NAMES.join(' ')}`);
    process.exit(2);
  }
  const names = (asked.length ? asked : SERVICE_NAMES) as ServiceName[];
  const started = Date.now();
  // One at a time: esbuild already uses every core for each.
  for (const name of names) {
    const built = await buildService(name);
    const bundles = Object.entries(built.bundles)
      .map(([file, size]) => `${file} ${kib(size)}`)
      .join(', ');
    console.log(
      `${name.padEnd(18)} ${bundles} from ${built.inputs} files${built.packages.length ? `; node_modules: ${built.packages.length} packages` : ''}`,
    );
  }
  console.log(`built ${names.length} service(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
