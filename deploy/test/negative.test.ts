/** The checks must fail on broken input: a bad manifest, an unknown compose key, a COPY of a missing path. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { composeErrors } from './support/compose';
import { dockerfileContextProblems } from './support/dockerfile';
import { k8sErrors, manifestFiles, parseYamlDocuments } from './support/k8s';
import { buildKustomization } from './support/kustomize';
import { K8S_DIR, REPO_ROOT } from './support/paths';

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('broken inputs fail the checks', () => {
  it('a Deployment with a field of the wrong type', () => {
    const file = path.join(K8S_DIR, 'base', 'billing', 'deployment.yaml');
    const d = parseYamlDocuments(fs.readFileSync(file, 'utf8'), file)[0] as AnyObj;
    expect(k8sErrors([d])).toEqual([]);
    d.spec.replicas = 'two';
    expect(k8sErrors([d])).toEqual([expect.stringMatching(/replicas must be integer/)]);
  });

  it('every kind of manifest with a bad field type', () => {
    const objects = manifestFiles(K8S_DIR).flatMap((f) => parseYamlDocuments(fs.readFileSync(f, 'utf8'), f) as AnyObj[]);
    const byKind = new Map<string, AnyObj>();
    for (const o of objects) if (!byKind.has(o.kind)) byKind.set(o.kind, JSON.parse(JSON.stringify(o)) as AnyObj);
    expect([...byKind.keys()].sort()).toEqual(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Ingress', 'Job', 'NetworkPolicy', 'PodDisruptionBudget', 'Secret', 'Service']);
    const broken = [...byKind.values()].map((o) => ({ ...o, metadata: { ...o.metadata, labels: ['not', 'a', 'map'] } }));
    const errors = k8sErrors(broken);
    expect(errors).toHaveLength(broken.length);
  });

  it('an unknown kind', () => {
    expect(k8sErrors([{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }])).toEqual(['Widget/w: unknown kind example.com/v1/Widget']);
  });

  it('an overlay whose patch produces a bad field, or targets nothing, or uses an unsupported key', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-kustomize-'));
    try {
      fs.cpSync(K8S_DIR, path.join(tmp, 'k8s'), { recursive: true });
      const dev = path.join(tmp, 'k8s', 'overlays', 'dev');
      expect(k8sErrors(buildKustomization(dev))).toEqual([]);
      fs.writeFileSync(path.join(dev, 'patches', 'replicas.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: billing\nspec:\n  replicas: many\n');
      expect(k8sErrors(buildKustomization(dev))).toEqual([expect.stringMatching(/^Deployment\/billing: .*replicas must be integer/)]);
      fs.writeFileSync(path.join(dev, 'patches', 'replicas.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nope\nspec:\n  replicas: 1\n');
      expect(() => buildKustomization(dev)).toThrow(/no resource Deployment\/nope/);
      const k = parse(fs.readFileSync(path.join(dev, 'kustomization.yaml'), 'utf8')) as AnyObj;
      k.patches = [];
      k.configMapGenerator = [];
      fs.writeFileSync(path.join(dev, 'kustomization.yaml'), stringify(k));
      expect(() => buildKustomization(dev)).toThrow(/unsupported kustomization key "configMapGenerator"/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a compose file with an unknown service key', () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    const broken = text.replace(/^  billing:\n/m, '  billing:\n    restart_policy: always\n');
    expect(broken).not.toBe(text);
    expect(composeErrors(broken)).toContainEqual(expect.stringMatching(/\/services\/billing must NOT have additional properties \(restart_policy\)/));
  });

  it('a compose file with an unknown top-level key or a bad depends_on condition', () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    expect(composeErrors(`${text}\nservice:\n  foo: {}\n`).length).toBeGreaterThan(0);
    expect(composeErrors(text.replace('condition: service_completed_successfully', 'condition: done')).length).toBeGreaterThan(0);
  });

  it('a Dockerfile copying a missing path, or a path .dockerignore excludes', () => {
    const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const ignore = fs.readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8');
    const missing = dockerfile.replace('COPY . .', 'COPY . .\nCOPY does-not-exist.json ./');
    expect(dockerfileContextProblems(missing, REPO_ROOT, ignore, { SERVICE: 'billing' })).toEqual([expect.stringMatching(/does-not-exist\.json is not in the build context/)]);
    const excluded = dockerfile.replace('COPY . .', 'COPY . .\nCOPY scripts/start.sh ./');
    expect(dockerfileContextProblems(excluded, REPO_ROOT, ignore, { SERVICE: 'billing' })).toEqual([expect.stringMatching(/scripts\/start\.sh is not in the build context/)]);
    const badService = dockerfile.replace('COPY . .', 'COPY . .\nCOPY services/${SERVICE}/package.json ./');
    expect(dockerfileContextProblems(badService, REPO_ROOT, ignore, { SERVICE: 'billing' })).toEqual([]);
    expect(dockerfileContextProblems(badService, REPO_ROOT, ignore, { SERVICE: 'nope' })).toHaveLength(1);
  });
});
