/**
 * Tracing in the prod overlay (deploy/k8s/components/tracing): every service's ConfigMap sets the
 * standard OTEL_* variables for an OTLP/HTTP collector, and its NetworkPolicy lets it reach the
 * collector's OTLP ports (the base denies every other egress). The dev overlay traces nothing.
 */
import path from 'node:path';
import { SERVICE_NAMES as SERVICES } from '@mf/fleet';
import { k8sErrors, type K8sObject } from './support/k8s';
import { HAS_KUBECTL, kustomize } from './support/kubectl';
import { K8S_DIR } from './support/paths';

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const render = (overlay: string): AnyObj[] => (HAS_KUBECTL ? kustomize(path.join(K8S_DIR, 'overlays', overlay)) : []);
const named = (objs: AnyObj[], kind: string, name: string): AnyObj =>
  objs.find((o) => o.kind === kind && o.metadata.name === name)!;
const describeRendered = HAS_KUBECTL ? describe : describe.skip;

describeRendered('tracing in the prod overlay', () => {
  const prod = render('prod');
  const dev = render('dev');

  it('sets the standard OTEL_* variables in every service’s ConfigMap: OTLP over HTTP, a parent-based ratio sampler', () => {
    for (const service of SERVICES) {
      const data = named(prod, 'ConfigMap', `${service}-config`).data;
      expect(new URL(data.OTEL_EXPORTER_OTLP_ENDPOINT).port).toBe('4318');
      expect(data.OTEL_EXPORTER_OTLP_PROTOCOL).toBe('http/protobuf');
      expect(data.OTEL_TRACES_SAMPLER).toBe('parentbased_traceidratio');
      expect(Number(data.OTEL_TRACES_SAMPLER_ARG)).toBeGreaterThan(0);
      expect(Number(data.OTEL_TRACES_SAMPLER_ARG)).toBeLessThanOrEqual(1);
      // The service's own name is the default: none is set that could disagree.
      expect(data.OTEL_SERVICE_NAME).toBeUndefined();
    }
  });

  it('opens egress from every service to the collector’s OTLP ports in its namespace, every other rule kept', () => {
    const base = render('dev');
    for (const service of SERVICES) {
      const np = named(prod, 'NetworkPolicy', service);
      expect(k8sErrors([np] as K8sObject[])).toEqual([]);
      const otlp = np.spec.egress.filter((r: AnyObj) =>
        r.ports?.some((p: AnyObj) => p.port === 4318 || p.port === 4317),
      );
      expect(otlp).toEqual([
        {
          to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'observability' } } }],
          ports: [
            { protocol: 'TCP', port: 4317 },
            { protocol: 'TCP', port: 4318 },
          ],
        },
      ]);
      expect(np.spec.egress.length).toBe(named(base, 'NetworkPolicy', service).spec.egress.length + 1);
    }
  });

  it('is left out of the dev overlay', () => {
    for (const service of SERVICES)
      expect(
        Object.keys(named(dev, 'ConfigMap', `${service}-config`).data).filter((k) => k.startsWith('OTEL_')),
      ).toEqual([]);
  });
});
