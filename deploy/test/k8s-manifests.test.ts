import fs from 'node:fs';
import path from 'node:path';
import { SERVICES as FLEET } from '@mf/fleet';
import { k8sErrors, manifestFiles, parseYamlDocuments, podSpec, yamlFiles, type K8sObject } from './support/k8s';
import { HAS_KUBECTL, kustomize } from './support/kubectl';
import { K8S_DIR, SERVICES } from './support/paths';

const files = yamlFiles(K8S_DIR);
const manifests = manifestFiles(K8S_DIR);
/** The base as `kubectl kustomize` renders it (empty, and its checks skipped, without kubectl). */
const base = HAS_KUBECTL ? kustomize(path.join(K8S_DIR, 'base')) : [];
const describeRendered = HAS_KUBECTL ? describe : describe.skip;
const find = (kind: string, name: string): K8sObject | undefined =>
  base.find((o) => o.kind === kind && o.metadata?.name === name);
const PORTS: Record<string, number> = Object.fromEntries(FLEET.map((s) => [s.name, s.port]));

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('deploy/k8s manifests', () => {
  it('has manifests', () => {
    expect(manifests.length).toBeGreaterThan(40);
  });

  it.each(files.map((f) => [path.relative(K8S_DIR, f)]))('%s parses as YAML', (rel) => {
    const docs = parseYamlDocuments(fs.readFileSync(path.join(K8S_DIR, rel), 'utf8'), rel);
    expect(docs.length).toBeGreaterThan(0);
    for (const d of docs) expect(typeof d).toBe('object');
  });

  it('every manifest (patches aside: they are checked merged, in kustomize.test.ts) validates against the Kubernetes and KEDA schemas (kubernetes-models, @kubernetes-models/keda; unknown kinds fail)', () => {
    const objects: unknown[] = [];
    for (const f of manifests) {
      for (const doc of parseYamlDocuments(fs.readFileSync(f, 'utf8'), f)) {
        objects.push(doc);
      }
    }
    const errors = k8sErrors(objects);
    expect(errors).toEqual([]);
  });
});

describeRendered('deploy/k8s/base rendered by kubectl kustomize', () => {
  describe.each(SERVICES.map((s) => [s]))('%s', (name) => {
    const port = PORTS[name];

    it('has a Deployment with probes, resources, a non-root read-only container and env from its ConfigMap and Secret', () => {
      const d = find('Deployment', name) as AnyObj;
      expect(d).toBeDefined();
      const spec = podSpec(d) as AnyObj;
      expect(spec.securityContext.runAsNonRoot).toBe(true);
      const c = spec.containers[0];
      expect(c.image).toBe(`mediaforge/${name}:latest`);
      expect(c.ports[0].containerPort).toBe(port);
      expect(c.livenessProbe.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
      expect(c.resources.requests).toHaveProperty('cpu');
      expect(c.resources.requests).toHaveProperty('memory');
      expect(c.resources.limits).toHaveProperty('cpu');
      expect(c.resources.limits).toHaveProperty('memory');
      expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(c.envFrom).toEqual([
        { configMapRef: { name: `${name}-config` } },
        { secretRef: { name: `${name}-secrets` } },
      ]);
      expect(c.volumeMounts.map((m: AnyObj) => m.mountPath)).toContain('/tmp');
      expect(spec.volumes.find((v: AnyObj) => v.name === 'tmp').emptyDir).toBeDefined();
      expect(spec.terminationGracePeriodSeconds).toBeGreaterThan(10 + 5);
      expect(find('ConfigMap', `${name}-config`)).toBeDefined();
    });

    it('has a ClusterIP Service selecting its pods, a PDB and a NetworkPolicy', () => {
      const svc = find('Service', name) as AnyObj;
      expect(svc.spec.type).toBe('ClusterIP');
      expect(svc.spec.ports[0].port).toBe(port);
      const labels = (find('Deployment', name) as AnyObj).spec.template.metadata.labels;
      expect(labels).toMatchObject(svc.spec.selector);
      expect(labels).toMatchObject((find('PodDisruptionBudget', name) as AnyObj).spec.selector.matchLabels);
      const np = find('NetworkPolicy', name) as AnyObj;
      expect(np.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      const egressPorts = np.spec.egress.flatMap((r: AnyObj) => r.ports.map((p: AnyObj) => p.port));
      expect(egressPorts).toEqual(expect.arrayContaining([53, 5432, 5672]));
      expect(egressPorts.includes(443)).toBe(['jobs', 'editor-agent', 'webhook-dispatcher'].includes(name));
      const fromIngress = np.spec.ingress.some((r: AnyObj) =>
        r.from.some(
          (f: AnyObj) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'ingress-nginx',
        ),
      );
      expect(fromIngress).toBe(name === 'gateway');
    });

    it('migrates at start, before it turns ready, with no migration Job: a rolling update keeps every old pod until a new one is ready', () => {
      const d = find('Deployment', name) as AnyObj;
      expect(find('Job', `${name}-migrate`)).toBeUndefined();
      // /readyz answers 200 only once the schema is migrated (under an advisory lock: replicas take turns).
      expect(d.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
      expect(podSpec(d).containers).toEqual([expect.objectContaining({ readinessProbe: expect.anything() })]);
      expect(podSpec(d)).not.toHaveProperty('initContainers');
    });
  });

  it('autoscales gateway, jobs and export-renderer (autoscaling/v2) and nothing else', () => {
    const hpas = base.filter((o) => o.kind === 'HorizontalPodAutoscaler') as AnyObj[];
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['export-renderer', 'gateway', 'jobs']);
    for (const h of hpas) {
      expect(h.apiVersion).toBe('autoscaling/v2');
      expect(find('Deployment', h.spec.scaleTargetRef.name)).toBeDefined();
      expect((find('Deployment', h.spec.scaleTargetRef.name) as AnyObj).spec.replicas).toBeUndefined();
    }
  });

  it('denies all traffic by default and exposes only the gateway through an Ingress', () => {
    const deny = find('NetworkPolicy', 'default-deny') as AnyObj;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const ingresses = base.filter((o) => o.kind === 'Ingress') as AnyObj[];
    expect(ingresses).toHaveLength(1);
    expect(ingresses[0].spec.rules[0].http.paths[0].backend.service.name).toBe('gateway');
  });

  it('sets AMQP_QUORUM_QUEUES in every ConfigMap', () => {
    for (const s of SERVICES) expect((find('ConfigMap', `${s}-config`) as AnyObj).data.AMQP_QUORUM_QUEUES).toBe('true');
  });

  it('puts common labels on every object', () => {
    for (const o of base) expect(o.metadata?.labels?.['app.kubernetes.io/part-of']).toBe('mediaforge');
  });
});
