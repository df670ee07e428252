/**
 * The container smoke test (npm run test:containers; scripts/test-containers.sh makes sure the
 * engine and the base image exist first). Builds the six images from the one Dockerfile, runs them
 * with host networking against a fresh database and vhost on this machine's Postgres and RabbitMQ
 * (read-only root filesystem, as the Kubernetes manifests run them), waits for every /readyz, then
 * through the containerised gateway: the admin CLI inside the gateway container creates a user and
 * a key; an image is generated with the local provider, polled to completed and fetched from
 * /media; a one-clip project is exported to mp4. Then each container gets `docker stop` and must
 * exit 0 within the grace period. Prints image sizes and each container's memory. Exit code 1 on
 * any failure; container logs are kept in test-artifacts/containers/.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVICES, type ServiceName } from '@mf/fleet';
import { freePort, freshTestEnv } from '../../libs/testing/src';
import { startReferenceServer } from '../../test-e2e/support/reference-server';
import { testTls } from '../../test-e2e/support/tls';
import { containerState, docker, imageSize, memoryUsage, stopContainer } from './docker';
import { runFlow } from './flow';
import { buildFleetImages } from './images';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const TAG = process.env.CONTAINERS_TAG ?? 'test';
/** docker stop's grace: the services' SHUTDOWN_TIMEOUT_MS (10 s) plus margin, as in the compose file and manifests. */
const GRACE_SEC = 30;
const MEDIA_SERVICES: ServiceName[] = ['gateway', 'jobs', 'editor-agent', 'export-renderer'];

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const log = (line: string): void => console.log(line);

async function waitReady(name: ServiceName, container: string, port: number, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const state = await containerState(container);
    if (!state.running) throw new Error(`${name} exited (${state.exitCode}) before it was ready`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${name} not ready after ${timeoutMs} ms`);
}

async function main(): Promise<void> {
  const artifacts = path.join(REPO_ROOT, 'test-artifacts', 'containers');
  fs.mkdirSync(artifacts, { recursive: true });
  const failures: string[] = [];

  // --- images ---------------------------------------------------------------------------------
  await buildFleetImages({ repoRoot: REPO_ROOT, tag: TAG, artifacts, log });

  // --- fleet ----------------------------------------------------------------------------------
  const testEnv = await freshTestEnv();
  const tls = await testTls();
  const ports = {} as Record<ServiceName, number>;
  for (const s of SERVICES) ports[s.name] = await freePort();
  const run = `${process.pid}`;
  const containerOf = (s: ServiceName): string => `mf-smoke-${run}-${s}`;
  // Per container a writable /app/.data (what an emptyDir is in the manifests), and one media
  // directory the gateway and the media services share (STORAGE_DRIVER=local). Written by the
  // containers' node user (uid 1000).
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-smoke-'));
  const writable = (dir: string): string => {
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o777);
    return dir;
  };
  const media = writable(path.join(scratch, 'media'));
  const certs = path.dirname(tls.caPath);
  fs.chmodSync(certs, 0o755);
  const baseUrl = `http://127.0.0.1:${ports.gateway}`;
  const started: ServiceName[] = [];
  const secrets = { webhookKey: randomBytes(32).toString('hex'), callback: randomBytes(24).toString('hex') };
  let ref: Awaited<ReturnType<typeof startReferenceServer>> | undefined;

  try {
    for (const s of SERVICES) {
      const env: Record<string, string> = {
        PORT: String(ports[s.name]),
        DATABASE_URL: testEnv.databaseUrl,
        AMQP_URL: testEnv.amqpUrl,
        PUBLIC_BASE_URL: baseUrl,
        LOG_LEVEL: 'info',
        STORAGE_DRIVER: 'local',
        STORAGE_DIR: '/app/.data/media',
        // The images run with NODE_ENV=production, which refuses the published development secrets.
        WEBHOOK_SECRET_KEY: secrets.webhookKey,
        PROVIDER_CALLBACK_SECRET: secrets.callback,
        // The local provider draws the test's image; production refuses it unless allowed.
        ALLOW_LOCAL_PROVIDER: 'true',
      };
      // The reference server is on loopback: private URLs, which production refuses, so this one
      // container runs as development (NODE_ENV only gates such refusals).
      if (s.name === 'editor-agent')
        Object.assign(env, {
          NODE_ENV: 'development',
          ALLOW_PRIVATE_URLS: 'true',
          NODE_EXTRA_CA_CERTS: '/certs/ca.pem',
        });
      const args = [
        'run',
        '-d',
        '--name',
        containerOf(s.name),
        '--network',
        'host',
        '--read-only',
        '--tmpfs',
        '/tmp',
        '-v',
        `${writable(path.join(scratch, s.name))}:/app/.data`,
      ];
      if (MEDIA_SERVICES.includes(s.name)) args.push('-v', `${media}:/app/.data/media`);
      if (s.name === 'editor-agent') args.push('-v', `${certs}:/certs:ro`);
      for (const [k, v] of Object.entries(env)) args.push('-e', `${k}=${v}`);
      args.push(`mediaforge/${s.name}:${TAG}`);
      await docker(...args);
      started.push(s.name);
    }
    log(
      `\nsix containers started (host network, read-only root filesystem) on database ${testEnv.db.name}, vhost ${testEnv.vhost.name}`,
    );
    const readyIn = await Promise.all(SERVICES.map((s) => waitReady(s.name, containerOf(s.name), ports[s.name])));
    SERVICES.forEach((s, i) => log(`  ${s.name.padEnd(20)} /readyz 200 after ${secs(readyIn[i])}`));
    const idle = await memoryUsage(started.map(containerOf));

    // --- through the containerised gateway ----------------------------------------------------
    const adminCli = async (...args: string[]): Promise<Record<string, unknown>> =>
      JSON.parse(
        await docker('exec', containerOf('gateway'), 'node', '--enable-source-maps', 'dist/admin.js', ...args),
      ) as Record<string, unknown>;
    ref = await startReferenceServer();
    await runFlow({ baseUrl, admin: adminCli, reference: ref, log });
    const busy = await memoryUsage(started.map(containerOf));

    // --- sizes and memory -----------------------------------------------------------------------
    log(
      `\n  ${'image'.padEnd(36)} ${'size'.padStart(8)}   ${'memory idle'.padStart(12)}   ${'after the flow'.padStart(14)}   (memory: docker stats)`,
    );
    for (const s of SERVICES) {
      const size = await imageSize(`mediaforge/${s.name}:${TAG}`);
      log(
        `  ${`mediaforge/${s.name}:${TAG}`.padEnd(36)} ${mib(size).padStart(8)}   ${idle[containerOf(s.name)].padStart(12)}   ${busy[containerOf(s.name)].padStart(14)}`,
      );
    }
  } catch (err) {
    failures.push((err as Error).message);
  } finally {
    // --- clean stops ----------------------------------------------------------------------------
    log(`\ndocker stop -t ${GRACE_SEC} (SIGTERM, then SIGKILL after the grace period):`);
    await Promise.all(
      started.map(async (s) => {
        const name = containerOf(s);
        try {
          const { seconds, state } = await stopContainer(name, GRACE_SEC);
          const clean = state.exitCode === 0 && !state.oomKilled && seconds < GRACE_SEC;
          log(`  ${s.padEnd(20)} exit ${state.exitCode} after ${seconds.toFixed(1)} s ${clean ? 'ok' : 'NOT CLEAN'}`);
          if (!clean)
            failures.push(`${s}: exit ${state.exitCode} after ${seconds.toFixed(1)} s (oomKilled ${state.oomKilled})`);
        } catch (err) {
          failures.push(`${s}: ${(err as Error).message}`);
        }
        fs.writeFileSync(
          path.join(artifacts, `${s}.log`),
          execFileSync('docker', ['logs', name], { maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] }),
        );
        await docker('rm', '-f', name).catch(() => undefined);
      }),
    );
    await ref?.close();
    await testEnv.teardown();
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  if (failures.length) {
    console.error(
      `\ncontainer smoke test FAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}\ncontainer logs: ${artifacts}`,
    );
    process.exit(1);
  }
  log(
    '\ncontainer smoke test passed: six images built, all ready, generate and export through the containers, every container stopped cleanly',
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
