/** The Dockerfile, read with dockerfile-ast, against the build context (.dockerignore by Docker's rules). */
import fs from 'node:fs';
import path from 'node:path';
import {
  contextExcludes,
  contextProblems,
  copies,
  parseDockerfile,
  stageChain,
  stages,
  type Stage,
} from './support/dockerfile';
import { REPO_ROOT, SERVICES } from './support/paths';

const text = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const dockerignore = fs.readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8');
const df = parseDockerfile(text);
const excluded = contextExcludes(dockerignore);
const MEDIA = ['jobs', 'editor-agent', 'export-renderer'];

const stageNamed = (all: Stage[], name: string): Stage => {
  const s = all.find((x) => x.name === name);
  if (!s) throw new Error(`no stage ${name}`);
  return s;
};
const runs = (s: Stage): string =>
  s.instructions
    .filter((i) => i.getKeyword() === 'RUN')
    .map((i) => i.getArgumentsContent() ?? '')
    .join('\n');
const keyword = (s: Stage, k: string) => s.instructions.filter((i) => i.getKeyword() === k);

describe('Dockerfile', () => {
  it('never mentions tsx: images run the compiled build', () => {
    expect(text).not.toMatch(/tsx/);
  });

  it.each(SERVICES.map((s) => [s]))(
    'SERVICE=%s: every COPY from the build context finds its sources (honouring .dockerignore)',
    (service) => {
      expect(
        copies(df, df.getInstructions(), { SERVICE: service }).filter((c) => c.from === null).length,
      ).toBeGreaterThan(0);
      expect(contextProblems(text, REPO_ROOT, dockerignore, { SERVICE: service })).toEqual([]);
    },
  );

  it.each(SERVICES.map((s) => [s]))(
    'SERVICE=%s: the final image starts from the right runtime and holds only its dist/, run by node as the node user',
    (service) => {
      const all = stages(df, { SERVICE: service });
      const final = all[all.length - 1];
      const chain = stageChain(all, final).map((s) => (typeof s === 'string' ? s : s.name));
      expect(chain).toEqual([
        null,
        `svc-${service}`,
        ...(MEDIA.includes(service) ? ['runtime-media'] : []),
        'runtime',
        'node:20-bookworm-slim',
      ]);
      expect(copies(df, final.instructions, { SERVICE: service })).toEqual([
        { line: expect.any(Number), from: 'build', sources: [`/app/services/${service}/dist`], dest: './dist' },
      ]);
      expect(keyword(final, 'USER').map((u) => u.getArgumentsContent())).toEqual(['node']);
      expect(keyword(final, 'CMD').map((c) => c.getArgumentsContent())).toEqual([
        '["node", "--enable-source-maps", "--max-semi-space-size=2", "dist/main.js"]',
      ]);
      expect(keyword(final, 'HEALTHCHECK')).toHaveLength(1);
      expect(keyword(final, 'STOPSIGNAL').map((s) => s.getArgumentsContent())).toEqual(['SIGTERM']);
    },
  );

  it('installs the workspace from the frozen lockfile once, keyed on the manifests, and builds all six services in one shared stage', () => {
    const all = stages(df);
    const deps = stageNamed(all, 'deps');
    expect(copies(df, deps.instructions)).toEqual([
      { line: expect.any(Number), from: 'manifests', sources: ['/manifests/'], dest: './' },
    ]);
    expect(runs(deps)).toMatch(/pnpm install --frozen-lockfile/);
    const build = stageNamed(all, 'build');
    expect(build.base).toBe('deps');
    expect(runs(build)).toMatch(/pnpm run -s build:dist/);
    expect(runs(build)).not.toMatch(/SERVICE/); // the same for all six images
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['build:dist']).toMatch(/scripts\/build\/main\.ts/);
  });

  it('puts ffmpeg and espeak-ng in the media runtime only, and no package manager in either runtime', () => {
    const all = stages(df);
    expect(runs(stageNamed(all, 'runtime-media'))).toMatch(/apt-get install[^\n]*ffmpeg espeak-ng fonts-dejavu-core/);
    expect(runs(stageNamed(all, 'runtime'))).not.toMatch(/apt-get/);
    expect(runs(stageNamed(all, 'runtime'))).toMatch(/rm -rf \/usr\/local\/lib\/node_modules \/usr\/local\/bin\/npm/);
    expect(runs(stageNamed(all, 'runtime'))).toMatch(/chown -R node:node \/app\/\.data/);
  });

  it('the build context holds what the build needs and leaves out tests, secrets, local state and other tooling', () => {
    const needed = [
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'tsconfig.json',
      'tsconfig.base.json',
      'scripts/build/main.ts',
      'scripts/build/services.ts',
      'services/gateway/dashboard/index.html',
      'services/gateway/dashboard/src/app.ts',
      'test-e2e/package.json',
      'sdk/package.json',
      'libs/db/src/index.ts',
      ...SERVICES.flatMap((s) => [
        `services/${s}/package.json`,
        `services/${s}/src/main.ts`,
        `services/${s}/migrations/index.ts`,
      ]),
    ];
    for (const p of needed) {
      expect(fs.existsSync(path.join(REPO_ROOT, p))).toBe(true);
      expect([p, excluded(p)]).toEqual([p, false]);
    }
    const left = [
      'services/jobs/test/x.test.ts',
      'services/jobs/node_modules/x',
      'services/jobs/dist/main.js',
      'secrets/jobs.env',
      '.env',
      '.git/HEAD',
      'test-e2e/support/fleet.ts',
      'scripts/start.sh',
      'scripts/build/test/build.test.ts',
      'deploy/k8s/base/kustomization.yaml',
      '.data/media/x.png',
      'README.md',
    ];
    for (const p of left) expect([p, excluded(p)]).toEqual([p, true]);
  });
});
