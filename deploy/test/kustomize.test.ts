/** Both overlays as `kubectl kustomize` renders them, every object validated and cross-checked. */
import path from 'node:path';
import { k8sErrors, podSpec, type K8sObject } from './support/k8s';
import { HAS_KUBECTL, kustomize } from './support/kubectl';
import { K8S_DIR, SERVICES } from './support/paths';

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const OVERLAYS = ['dev', 'prod'] as const;
const built = Object.fromEntries(
  OVERLAYS.map((o) => [o, HAS_KUBECTL ? kustomize(path.join(K8S_DIR, 'overlays', o)) : []]),
) as Record<(typeof OVERLAYS)[number], K8sObject[]>;
const describeOverlay = HAS_KUBECTL ? describe.each : describe.skip.each;
const get = (objs: K8sObject[], kind: string, name: string): AnyObj => {
  const o = objs.find((x) => x.kind === kind && x.metadata?.name === name);
  if (!o) throw new Error(`no ${kind}/${name}`);
  return o;
};

describeOverlay(OVERLAYS.map((o) => [o]))('overlay %s (kubectl kustomize)', (overlay) => {
  const objs = built[overlay];

  it('renders and every resulting object validates against the Kubernetes schemas and those of the custom resources (KEDA, Prometheus Operator)', () => {
    expect(objs.length).toBeGreaterThan(35);
    expect(k8sErrors(objs)).toEqual([]);
    // Each service migrates its own schema at start (libs/db: an advisory lock per schema): no Job to delete before an upgrade.
    expect(objs.filter((o) => o.kind === 'Job')).toEqual([]);
  });

  it('places everything in its namespace', () => {
    const ns = overlay === 'dev' ? 'mediaforge-dev' : 'mediaforge';
    for (const o of objs) expect(o.metadata?.namespace).toBe(ns);
  });

  it('references only what exists: ConfigMaps, HPA and ScaledObject targets, Service selectors, Ingress backends', () => {
    for (const d of objs.filter((o) => o.kind === 'Deployment' || o.kind === 'Job')) {
      const spec = podSpec(d) as AnyObj;
      for (const c of spec.containers) {
        for (const e of c.envFrom) {
          if (e.configMapRef) get(objs, 'ConfigMap', e.configMapRef.name);
          if (e.secretRef && overlay === 'dev') get(objs, 'Secret', e.secretRef.name);
        }
      }
    }
    for (const h of objs.filter((o) => o.kind === 'HorizontalPodAutoscaler') as AnyObj[]) {
      get(objs, 'Deployment', h.spec.scaleTargetRef.name);
      expect(h.spec.minReplicas).toBeLessThanOrEqual(h.spec.maxReplicas);
    }
    for (const so of objs.filter((o) => o.kind === 'ScaledObject') as AnyObj[]) {
      get(objs, 'Deployment', so.spec.scaleTargetRef.name);
      expect(so.spec.minReplicaCount).toBeLessThanOrEqual(so.spec.maxReplicaCount);
      for (const t of so.spec.triggers.filter((x: AnyObj) => x.authenticationRef))
        get(objs, 'TriggerAuthentication', t.authenticationRef.name);
    }
    for (const s of objs.filter((o) => o.kind === 'Service') as AnyObj[]) {
      const d = get(objs, 'Deployment', s.metadata.name);
      expect(d.spec.template.metadata.labels).toMatchObject(s.spec.selector);
      expect(d.spec.selector.matchLabels).toMatchObject(s.spec.selector);
    }
    const ing = get(objs, 'Ingress', 'gateway');
    get(objs, 'Service', ing.spec.rules[0].http.paths[0].backend.service.name);
  });

  it('applies its image tags, replicas, HPA bounds and ingress host', () => {
    for (const s of SERVICES) {
      const image = (podSpec(get(objs, 'Deployment', s)) as AnyObj).containers[0].image;
      expect(image).toBe(overlay === 'dev' ? `mediaforge/${s}:dev` : `registry.example.com/mediaforge/${s}:1.0.0`);
    }
    const ing = get(objs, 'Ingress', 'gateway');
    const gwHpa = get(objs, 'HorizontalPodAutoscaler', 'gateway');
    if (overlay === 'dev') {
      expect(get(objs, 'Deployment', 'billing').spec.replicas).toBe(1);
      expect(gwHpa.spec).toMatchObject({ minReplicas: 1, maxReplicas: 2 });
      expect(ing.spec.rules[0].host).toBe('mediaforge.localtest.me');
      expect(get(objs, 'ConfigMap', 'gateway-config').data).toMatchObject({
        PUBLIC_BASE_URL: 'http://mediaforge.localtest.me',
        PORT: '8080',
      });
      // The strategic merge keeps the base's limits next to the patched requests.
      expect((podSpec(get(objs, 'Deployment', 'jobs')) as AnyObj).containers[0].resources).toEqual({
        requests: { cpu: '50m', memory: '128Mi' },
        limits: { cpu: '2', memory: '1Gi' },
      });
    } else {
      expect(get(objs, 'Deployment', 'billing').spec.replicas).toBe(3);
      expect(gwHpa.spec).toMatchObject({ minReplicas: 3, maxReplicas: 20 });
      expect(ing.spec.rules[0].host).toBe('api.mediaforge.io');
      expect(ing.spec.tls[0].hosts).toEqual(['api.mediaforge.io']);
      expect(ing.metadata.annotations['nginx.ingress.kubernetes.io/proxy-read-timeout']).toBe('900');
      expect(objs.filter((o) => o.kind === 'Secret')).toEqual([]);
      for (const s of ['gateway', 'jobs', 'editor-agent'])
        expect(get(objs, 'ConfigMap', `${s}-config`).data.PUBLIC_BASE_URL).toBe('https://api.mediaforge.io');
    }
    for (const o of objs)
      expect(o.metadata?.labels?.['app.kubernetes.io/instance']).toBe(
        overlay === 'dev' ? 'mediaforge-dev' : 'mediaforge',
      );
  });

  it('counts the gateway rate limit in a shared store when the gateway may run more than one replica', () => {
    expect(get(objs, 'HorizontalPodAutoscaler', 'gateway').spec.maxReplicas).toBeGreaterThan(1);
    expect(['postgres', 'redis']).toContain(get(objs, 'ConfigMap', 'gateway-config').data.RATE_LIMIT_STORE);
  });
});
