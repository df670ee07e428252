import fs from 'node:fs';
import path from 'node:path';
import { dockerfileContextProblems, isIgnored, parseCopies, parseDockerignore, pathsFromContextStage } from './support/dockerfile';
import { REPO_ROOT, SERVICES } from './support/paths';

const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const dockerignore = fs.readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8');

describe('Dockerfile', () => {
  it.each(SERVICES.map((s) => [s]))('SERVICE=%s: every COPY from the build context finds its sources (honouring .dockerignore)', (service) => {
    expect(parseCopies(dockerfile).filter((c) => c.from === undefined).length).toBeGreaterThan(0);
    expect(dockerfileContextProblems(dockerfile, REPO_ROOT, dockerignore, { SERVICE: service })).toEqual([]);
  });

  it.each(SERVICES.map((s) => [s]))('SERVICE=%s: what the runtime stage copies from the build stage was in the context', (service) => {
    const rules = parseDockerignore(dockerignore);
    const paths = pathsFromContextStage(dockerfile, 'build', '/app', { SERVICE: service }).filter((p) => p !== 'node_modules');
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'libs', `services/${service}`]));
    for (const p of paths) {
      expect(fs.existsSync(path.join(REPO_ROOT, p))).toBe(true);
      expect(isIgnored(p, rules)).toBe(false);
    }
    // Sources stay in; tests, node_modules and secrets stay out.
    expect(isIgnored(`services/${service}/src/main.ts`, rules)).toBe(false);
    expect(isIgnored(`services/${service}/test/x.test.ts`, rules)).toBe(true);
    expect(isIgnored(`services/${service}/node_modules/x`, rules)).toBe(true);
    expect(isIgnored('secrets/jobs.env', rules)).toBe(true);
    expect(isIgnored('test-e2e/package.json', rules)).toBe(false);
    expect(isIgnored('test-e2e/support/fleet.ts', rules)).toBe(true);
  });

  it('is multi-stage, non-root, production-only, with a HEALTHCHECK and media tools only for media services', () => {
    expect((dockerfile.match(/^FROM /gm) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/pnpm install --frozen-lockfile[^\n]*--prod/);
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    expect(dockerfile).toMatch(/jobs\|editor-agent\|export-renderer\)[\s\\]*apt-get update[\s\S]*ffmpeg espeak-ng fonts-dejavu-core/);
    expect(dockerfile).toMatch(/chown -R node:node \/app\/\.data/);
  });
});
