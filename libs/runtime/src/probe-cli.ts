/**
 * The images' health probe, built into every service's dist as probe.js (Dockerfile HEALTHCHECK:
 * `node dist/probe.js /healthz`; docker-compose.yml: `node dist/probe.js /readyz`). Exits 0 when the
 * service answers 2xx on PORT, or on its default port where PORT is not set.
 */
import { probeHealth } from './probe';

// Replaced by the service's default port in the production build (scripts/build/services.ts).
declare const SERVICE_DEFAULT_PORT: number;

const port = Number(process.env.PORT || SERVICE_DEFAULT_PORT);
const path = process.argv[2] ?? '/healthz';
void probeHealth(port, path, 4000).then(({ ok, seen }) => {
  // Docker keeps the output of the last runs (docker inspect): why a container is unhealthy.
  if (!ok) process.stdout.write(`${seen}\n`);
  process.exit(ok ? 0 : 1);
});
