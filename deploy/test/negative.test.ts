/** The checks must fail on broken input: a bad manifest, a broken overlay, an unknown compose key, a COPY of a missing path. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { composeErrors, HAS_COMPOSE } from './support/compose';
import { contextProblems } from './support/dockerfile';
import { k8sErrors, manifestFiles, parseYamlDocuments } from './support/k8s';
import { HAS_KUBECTL, kustomize } from './support/kubectl';
import { K8S_DIR, REPO_ROOT } from './support/paths';

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const itKubectl = HAS_KUBECTL ? it : it.skip;
const itCompose = HAS_COMPOSE ? it : it.skip;

describe('broken inputs fail the checks', () => {
  it('a Deployment with a field of the wrong type', () => {
    const file = path.join(K8S_DIR, 'base', 'billing', 'deployment.yaml');
    const d = parseYamlDocuments(fs.readFileSync(file, 'utf8'), file)[0] as AnyObj;
    expect(k8sErrors([d])).toEqual([]);
    d.spec.replicas = 'two';
    expect(k8sErrors([d])).toEqual([expect.stringMatching(/replicas must be integer/)]);
  });

  it('every kind of manifest with a bad field type', () => {
    const objects = manifestFiles(K8S_DIR).flatMap(
      (f) => parseYamlDocuments(fs.readFileSync(f, 'utf8'), f) as AnyObj[],
    );
    const byKind = new Map<string, AnyObj>();
    for (const o of objects) if (!byKind.has(o.kind)) byKind.set(o.kind, JSON.parse(JSON.stringify(o)) as AnyObj);
    expect([...byKind.keys()].sort()).toEqual([
      'ClusterSecretStore',
      'ConfigMap',
      'Deployment',
      'ExternalSecret',
      'HorizontalPodAutoscaler',
      'Ingress',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'PrometheusRule',
      'ScaledObject',
      'Secret',
      'Service',
      'ServiceMonitor',
      'TriggerAuthentication',
    ]);
    const broken = [...byKind.values()].map((o) => ({
      ...o,
      metadata: { ...o.metadata, labels: ['not', 'a', 'map'] },
    }));
    const errors = k8sErrors(broken);
    expect(errors).toHaveLength(broken.length);
  });

  it('a ScaledObject with a bad trigger or replica bound', () => {
    const file = path.join(K8S_DIR, 'components', 'keda', 'scaledobject-jobs.yaml');
    const so = parseYamlDocuments(fs.readFileSync(file, 'utf8'), file)[0] as AnyObj;
    expect(k8sErrors([so])).toEqual([]);
    expect(k8sErrors([{ ...so, spec: { ...so.spec, minReplicaCount: 'three' } }])).toEqual([
      expect.stringMatching(/^ScaledObject\/jobs: .*minReplicaCount must be integer/),
    ]);
    expect(k8sErrors([{ ...so, spec: { ...so.spec, triggers: [{ metadata: { queueName: 'jobs.rpc' } }] } }])).toEqual([
      expect.stringMatching(/^ScaledObject\/jobs: .*type/),
    ]);
  });

  it('an unknown kind', () => {
    expect(k8sErrors([{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }])).toEqual([
      'Widget/w: unknown kind example.com/v1/Widget',
    ]);
  });

  itKubectl('an overlay whose patch produces a bad field, or targets nothing, or names a missing component', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-kustomize-'));
    try {
      fs.cpSync(K8S_DIR, path.join(tmp, 'k8s'), { recursive: true });
      const dev = path.join(tmp, 'k8s', 'overlays', 'dev');
      const replicas = path.join(dev, 'patches', 'replicas.yaml');
      expect(k8sErrors(kustomize(dev))).toEqual([]);
      fs.writeFileSync(
        replicas,
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: billing\nspec:\n  replicas: many\n',
      );
      expect(k8sErrors(kustomize(dev))).toEqual([
        expect.stringMatching(/^Deployment\/billing: .*replicas must be integer/),
      ]);
      fs.writeFileSync(
        replicas,
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nope\nspec:\n  replicas: 1\n',
      );
      expect(() => kustomize(dev)).toThrow(/no matches for Id Deployment.*nope/);
      const prod = path.join(tmp, 'k8s', 'overlays', 'prod');
      const kustomization = path.join(prod, 'kustomization.yaml');
      fs.writeFileSync(
        kustomization,
        fs.readFileSync(kustomization, 'utf8').replace('../../components/keda', '../../components/nope'),
      );
      expect(() => kustomize(prod)).toThrow(/components\/nope/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  itCompose('a compose file with an unknown service key', () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    const broken = text.replace(/^ {2}billing:\n/m, '  billing:\n    restart_policy: always\n');
    expect(broken).not.toBe(text);
    expect(composeErrors(broken)).toContainEqual(
      expect.stringMatching(/services\.billing Additional property restart_policy is not allowed/),
    );
  });

  itCompose('a compose file with an unknown top-level key, a bad depends_on condition or a bad duration', () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    expect(composeErrors(`${text}\nservice:\n  foo: {}\n`)).toContainEqual(
      expect.stringMatching(/Additional property service is not allowed/),
    );
    expect(composeErrors(text.replace('condition: service_completed_successfully', 'condition: done'))).toContainEqual(
      expect.stringMatching(/condition must be one of/),
    );
    expect(composeErrors(text.replace('stop_grace_period: 30s', 'stop_grace_period: soon')).length).toBeGreaterThan(0);
  });

  it('a Dockerfile copying a missing path, or a path .dockerignore excludes', () => {
    const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const ignore = fs.readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8');
    const inBuild = (line: string) => dockerfile.replace('COPY . .\n', `COPY . .\n${line}\n`);
    expect(contextProblems(inBuild('COPY does-not-exist.json ./'), REPO_ROOT, ignore, { SERVICE: 'billing' })).toEqual([
      expect.stringMatching(/does-not-exist\.json is not in the build context/),
    ]);
    expect(contextProblems(inBuild('COPY scripts/start.sh ./'), REPO_ROOT, ignore, { SERVICE: 'billing' })).toEqual([
      expect.stringMatching(/scripts\/start\.sh is not in the build context/),
    ]);
    expect(
      contextProblems(inBuild('COPY scripts/build/test ./'), REPO_ROOT, ignore, { SERVICE: 'billing' }),
    ).toHaveLength(1);
    const perService = inBuild('COPY services/${SERVICE}/package.json ./');
    expect(contextProblems(perService, REPO_ROOT, ignore, { SERVICE: 'billing' })).toEqual([]);
    expect(contextProblems(perService, REPO_ROOT, ignore, { SERVICE: 'nope' })).toHaveLength(1);
  });
});
