/**
 * npm run test:compose (scripts/test-compose.sh makes sure of the engine, Compose v2 and the base
 * image first): the repository's docker-compose.yml brought up as a platform team would, with
 * `docker compose up -d` on its own network (no host networking), the .env made from .env.example.
 * The six service images are the ones npm run test:containers builds (rebuilt here from the Docker
 * cache); postgres, rabbitmq and minio are the real images when present or pullable, else stand-ins
 * (stand-ins.ts). Through the published gateway port: a user and key from the admin CLI inside the
 * gateway container, an image generated and found in the S3 bucket, a one-clip project exported
 * (its mp4 in the bucket too); every series the alert rules and dashboard read is exported by the
 * running services; every service turns healthy; `docker compose down -v` leaves no container,
 * volume or network. Prints what was a stand-in and how long each step took. Exit 1 on failure;
 * the project's logs go to test-artifacts/compose/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVICES } from '@mf/fleet';
import { exposedNames, monitoringMetricNames } from '../../deploy/test/support/monitoring';
import { freePort } from '../../libs/testing/src';
import { composeProject, type ComposeProject } from './compose-project';
import { deploymentSecrets, envFromExample, writeTestOverride } from './compose-setup';
import { logHealthChecks, logStopTimes } from './compose-report';
import { docker } from './docker';
import { runFlow } from './flow';
import { buildFleetImages } from './images';
import { ensureInfraImages, STAND_IN_OF } from './stand-ins';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const TAG = process.env.CONTAINERS_TAG ?? 'test';
const log = (line: string): void => console.log(line);
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** A failure no wait can mend (a container that exited): `until` gives up at once. */
class Fatal extends Error {}

async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | null | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      if (err instanceof Fatal) throw err;
      last = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not after ${secs(timeoutMs)}${last ? ` (${last})` : ''}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Fails as soon as a service container exits or restarts instead of coming up. */
async function assertNothingDown(project: ComposeProject): Promise<void> {
  const down = (await project.states()).filter(
    (s) => s.service !== 'minio-init' && (s.state === 'exited' || s.state === 'restarting' || s.state === 'dead'),
  );
  if (down.length)
    throw new Fatal(`not running: ${down.map((s) => `${s.service} (${s.state}, exit ${s.exitCode})`).join(', ')}`);
}

/** The S3 object behind a /media URL, as the MinIO client sees it from inside the project's network. */
async function statInBucket(project: ComposeProject, mediaUrl: string): Promise<{ size: number }> {
  const key = decodeURIComponent(new URL(mediaUrl).pathname.replace(/^\/media\//, ''));
  const script = `mc alias set local http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null && mc stat --json "local/$S3_BUCKET/${key}"`;
  const out = await project.run('run', '--rm', '--no-deps', '-T', 'minio-init', script);
  const stat = JSON.parse(out.split('\n').filter(Boolean).pop()!) as { status: string; size: number };
  if (stat.status !== 'success') throw new Error(`mc stat ${key}: ${out}`);
  return stat;
}

async function main(): Promise<void> {
  const artifacts = path.join(REPO_ROOT, 'test-artifacts', 'compose');
  fs.mkdirSync(artifacts, { recursive: true });
  const timings: [string, number][] = [];
  const timed = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const t = Date.now();
    try {
      return await fn();
    } finally {
      timings.push([step, Date.now() - t]);
    }
  };
  const started = Date.now();

  // --- the deployment's settings, as an operator writes them --------------------------------------
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-compose-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const envFile = path.join(dir, '.env');
  fs.writeFileSync(
    envFile,
    envFromExample(fs.readFileSync(path.join(REPO_ROOT, '.env.example'), 'utf8'), {
      ...deploymentSecrets(),
      GATEWAY_PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      MEDIAFORGE_TAG: TAG,
    }),
  );
  const override = writeTestOverride(dir, `mediaforge/gateway:${TAG}`);
  const project = composeProject({
    name: `mf-compose-${process.pid}`,
    repoRoot: REPO_ROOT,
    files: [path.join(REPO_ROOT, 'docker-compose.yml'), override],
    envFile,
  });
  const failures: string[] = [];
  let up = false;

  try {
    // --- images --------------------------------------------------------------------------------
    await timed('service images (Docker cache)', () =>
      buildFleetImages({ repoRoot: REPO_ROOT, tag: TAG, artifacts, log }),
    );
    const model = JSON.parse(await project.run('config', '--format', 'json')) as {
      services: Record<string, { image: string }>;
    };
    const infra = await timed('infrastructure images', () =>
      ensureInfraImages({
        images: Object.fromEntries(Object.keys(STAND_IN_OF).map((s) => [s, model.services[s].image])),
        baseImage: fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8').match(/^ARG NODE_IMAGE=(\S+)/m)![1],
        artifacts,
        log,
      }),
    );
    log('\ninfrastructure images:');
    for (const i of infra) log(`  ${i.service.padEnd(12)} ${i.image.padEnd(28)} ${i.source} (${secs(i.ms)})`);

    // --- up ------------------------------------------------------------------------------------
    up = true;
    await timed('docker compose up -d', () => project.run('up', '-d', '--no-build', '--pull', 'never'));
    log(`\ndocker compose up -d: project ${project.name}, gateway published on ${baseUrl}`);
    await timed('gateway ready through the published port', () =>
      until('gateway /readyz 200 through the published port', 180_000, async () => {
        await assertNothingDown(project);
        const res = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => null);
        return res?.status === 200;
      }),
    );

    // The gateway answers before the services behind it may: as the runbook has an operator wait for
    // every service, the flow starts once each one's /readyz passes inside its container (the
    // healthcheck's probe, run now rather than at the healthcheck's next interval).
    await timed('every service ready inside its container', () =>
      until('every service /readyz 200 inside its container', 180_000, async () => {
        await assertNothingDown(project);
        for (const s of SERVICES) {
          await project.run('exec', '-T', s.name, 'node', 'dist/probe.js', '/readyz').catch((err: Error) => {
            throw new Error(`${s.name}: ${err.message.split('\n').slice(-2).join(' ').trim()}`);
          });
        }
        return true;
      }),
    );

    // --- through the gateway ---------------------------------------------------------------------
    const admin = async (...args: string[]): Promise<Record<string, unknown>> =>
      JSON.parse(
        await project.run('exec', '-T', 'gateway', 'node', '--enable-source-maps', 'dist/admin.js', ...args),
      ) as Record<string, unknown>;
    const media = await timed('generate, export (through the gateway)', () =>
      runFlow({ baseUrl, admin, reference: { url: 'https://reference:8443' }, log }),
    );
    for (const [what, url] of [
      ['generated image', media.imageUrl],
      ['exported mp4', media.videoUrl],
    ] as const) {
      const served = Buffer.from(await (await fetch(url)).arrayBuffer()).length;
      const stat = await statInBucket(project, url);
      if (stat.size !== served) throw new Error(`${what}: ${stat.size} bytes in the bucket, ${served} served`);
      log(`${what}: in the S3 bucket (mc stat through the minio-init image), ${stat.size} bytes, as served`);
    }

    // --- what monitoring reads is what the services export ---------------------------------------
    const exported = new Set<string>();
    for (const s of SERVICES) {
      const text = await project.run(
        'exec',
        '-T',
        s.name,
        'node',
        '-e',
        "fetch('http://127.0.0.1:'+process.env.PORT+'/metrics').then((r)=>r.text()).then((t)=>process.stdout.write(t))",
      );
      for (const n of exposedNames(text)) exported.add(n);
    }
    const missing = monitoringMetricNames().filter((n) => !exported.has(n));
    if (missing.length)
      throw new Error(`series the alert rules or dashboard read, exported by no service: ${missing.join(', ')}`);
    log(`monitoring: the ${monitoringMetricNames().length} series the alert rules and dashboard read are all exported`);

    // --- health ----------------------------------------------------------------------------------
    await timed('every service healthy', () =>
      until('every service container healthy', 120_000, async () => {
        await assertNothingDown(project);
        const states = await project.states();
        const init = states.find((s) => s.service === 'minio-init');
        if (init?.state !== 'exited' || init.exitCode !== 0)
          throw new Error(`minio-init: ${init?.state} ${init?.exitCode}`);
        const waiting = states.filter(
          (s) => s.service !== 'minio-init' && s.service !== 'reference' && s.health !== 'healthy',
        );
        if (waiting.length)
          throw new Error(`not healthy yet: ${waiting.map((s) => `${s.service} ${s.health}`).join(', ')}`);
        return true;
      }),
    ).catch(async (err: Error) => {
      await logHealthChecks(`label=com.docker.compose.project=${project.name}`).catch((e: Error) =>
        log(`healthcheck logs unavailable: ${e.message}`),
      );
      throw err;
    });
    log(
      'every service healthy (compose healthchecks: pg_isready, rabbitmq-diagnostics, mc ready, /readyz); minio-init exited 0',
    );
  } catch (err) {
    failures.push((err as Error).message);
  } finally {
    if (up) {
      fs.writeFileSync(
        path.join(artifacts, 'compose.log'),
        await project.run('logs', '--no-color', '--timestamps').catch((e: Error) => e.message),
      );
      const label = `label=com.docker.compose.project=${project.name}`;
      // Stopped first, to see how long each container takes to end on SIGTERM (a container that
      // ignores it holds `down` for the whole grace period, then is killed: exit 137).
      const stopping = Date.now();
      await timed('docker compose stop', () => project.run('stop', '--timeout', '30')).catch((err: Error) =>
        failures.push(err.message),
      );
      const killed = await logStopTimes(label, stopping).catch((err: Error) => {
        log(`stop times unavailable: ${err.message}`);
        return [];
      });
      if (killed.length) failures.push(`ignored SIGTERM until killed after the grace period: ${killed.join(', ')}`);
      await timed('docker compose down -v', () => project.run('down', '-v', '--timeout', '30')).catch((err: Error) =>
        failures.push(err.message),
      );
      const left = [
        ...(await docker('ps', '-a', '-q', '--filter', label)).split('\n'),
        ...(await docker('volume', 'ls', '-q', '--filter', label)).split('\n'),
        ...(await docker('network', 'ls', '-q', '--filter', label)).split('\n'),
      ].filter(Boolean);
      if (left.length)
        failures.push(`docker compose down -v left ${left.length} containers, volumes or networks: ${left.join(' ')}`);
      else log('docker compose down -v: no container, volume or network of the project left');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }

  log('\ntimings:');
  for (const [step, ms] of timings) log(`  ${step.padEnd(44)} ${secs(ms)}`);
  log(`  ${'total'.padEnd(44)} ${secs(Date.now() - started)}`);
  if (failures.length) {
    console.error(
      `\ncompose test FAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}\nlogs: ${artifacts}/compose.log`,
    );
    process.exit(1);
  }
  log(
    '\ncompose test passed: docker compose up of docker-compose.yml, generate and export through the gateway, media in the bucket, down -v clean',
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
