/** The six service images built from the one Dockerfile (npm run test:containers and test:compose build the same). */
import path from 'node:path';
import { SERVICES } from '@mf/fleet';
import { buildImage } from './docker';

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * Builds the shared build stage, then `mediaforge/<service>:<tag>` for each service, with the classic
 * builder from the repository root (its cache makes an unchanged tree a few seconds per image).
 * Logs go to `<artifacts>/build-*.log`; returns the milliseconds it took.
 */
export async function buildFleetImages(opts: {
  repoRoot: string;
  tag: string;
  artifacts: string;
  log: (line: string) => void;
}): Promise<number> {
  const { repoRoot, tag, artifacts, log } = opts;
  const started = Date.now();
  log(
    `building the shared build stage, then the six images (classic builder; logs in ${path.relative(repoRoot, artifacts)}/build-*.log)`,
  );
  process.chdir(repoRoot);
  // The build stage under a tag of its own, so it is never taken for a dangling image and pruned.
  let t = Date.now();
  await buildImage({
    tag: `mediaforge/build:${tag}`,
    target: 'build',
    buildArgs: { SERVICE: 'gateway' },
    logFile: path.join(artifacts, 'build-stage.log'),
  });
  log(`  build stage            ${secs(Date.now() - t)}`);
  for (const s of SERVICES) {
    t = Date.now();
    await buildImage({
      tag: `mediaforge/${s.name}:${tag}`,
      buildArgs: { SERVICE: s.name },
      logFile: path.join(artifacts, `build-${s.name}.log`),
    });
    log(`  ${`mediaforge/${s.name}:${tag}`.padEnd(38)} ${secs(Date.now() - t)}`);
  }
  const took = Date.now() - started;
  log(`six images built in ${secs(took)}`);
  return took;
}
