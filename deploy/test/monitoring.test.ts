/**
 * components/monitoring in the prod overlay: a ServiceMonitor per service that selects its Service
 * and named port, the alert rules and the Grafana dashboard, valid for the Prometheus Operator's
 * schemas, and every PromQL expression parsing and reading only series the services export (the
 * registries below are the ones the services build; npm run test:compose checks the running ones).
 */
import path from 'node:path';
import { createBusMetrics } from '../../libs/bus/src/metrics';
import { createHttpApp } from '../../libs/http/src';
import { createRegistry } from '../../libs/runtime/src/health';
import { silentLogger } from '../../libs/testing/src';
import { createBatchSizeHistogram, createCreditMetrics } from '../../services/billing/src/billing-metrics';
import { createProviderMetrics } from '../../services/jobs/src/routing/provider-metrics';
import { createWebhookMetrics } from '../../services/webhook-dispatcher/src/webhook-metrics';
import { k8sErrors } from './support/k8s';
import { HAS_KUBECTL, kustomize } from './support/kubectl';
import {
  dashboard,
  exposedNames,
  monitoringExpressions,
  monitoringMetricNames,
  promqlMetricNames,
} from './support/monitoring';
import { K8S_DIR, SERVICES } from './support/paths';

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const prod = (HAS_KUBECTL ? kustomize(path.join(K8S_DIR, 'overlays', 'prod')) : []) as AnyObj[];
const dev = (HAS_KUBECTL ? kustomize(path.join(K8S_DIR, 'overlays', 'dev')) : []) as AnyObj[];
const describeRendered = HAS_KUBECTL ? describe : describe.skip;

/** Every series name the services' registries offer: default process metrics, HTTP, bus, and each service's own. */
async function exportedNames(): Promise<Set<string>> {
  const registry = createRegistry('any');
  createHttpApp({ logger: silentLogger(), registry });
  createBusMetrics(registry);
  createProviderMetrics(registry);
  createWebhookMetrics(registry);
  createBatchSizeHistogram(registry);
  createCreditMetrics(registry);
  return exposedNames(await registry.metrics());
}

describeRendered('monitoring in the prod overlay (components/monitoring)', () => {
  it('has a ServiceMonitor per service selecting its Service and scraping its named port at /metrics', () => {
    const monitors = prod.filter((o) => o.kind === 'ServiceMonitor');
    expect(monitors.map((m) => m.metadata.name).sort()).toEqual([...SERVICES].sort());
    for (const m of monitors) {
      const svc = prod.find((o) => o.kind === 'Service' && o.metadata.name === m.metadata.name)!;
      expect(svc.metadata.labels).toMatchObject(m.spec.selector.matchLabels);
      expect(m.spec.endpoints).toEqual([expect.objectContaining({ path: '/metrics', honorLabels: true })]);
      expect(svc.spec.ports.map((p: AnyObj) => p.name)).toContain(m.spec.endpoints[0].port);
      expect(m.metadata.namespace).toBe('mediaforge');
    }
    expect(k8sErrors(monitors)).toEqual([]);
  });

  it('admits the scrapes: each service’s NetworkPolicy lets the monitoring namespace reach its metrics port', () => {
    for (const s of SERVICES) {
      const np = prod.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === s)!;
      const port = prod.find((o) => o.kind === 'Service' && o.metadata.name === s)!.spec.ports[0].port;
      const fromMonitoring = np.spec.ingress.find((r: AnyObj) =>
        r.from.some((f: AnyObj) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring'),
      );
      expect(fromMonitoring.ports).toEqual([{ protocol: 'TCP', port }]);
    }
  });

  it('alerts on queue backlog, dead letters, the webhook failure ratio, the 5xx ratio and job timeouts (a valid PrometheusRule)', () => {
    const rules = prod.filter((o) => o.kind === 'PrometheusRule');
    expect(rules).toHaveLength(1);
    expect(k8sErrors(rules)).toEqual([]);
    const byName: Record<string, AnyObj> = Object.fromEntries(
      (rules[0].spec.groups as AnyObj[]).flatMap((g) => g.rules as AnyObj[]).map((r) => [r.alert, r]),
    );
    const reads = (alert: string): string[] => promqlMetricNames(byName[alert].expr);
    expect(reads('MediaforgeQueueBacklog')).toEqual(['bus_queue_messages_ready']);
    expect(byName.MediaforgeQueueBacklog.expr).toContain('queue!~".*\\\\.dlq"');
    expect(reads('MediaforgeDeadLetters')).toEqual(['bus_queue_messages_ready']);
    expect(byName.MediaforgeDeadLetters.expr).toMatch(/queue=~"\.\*\\\\\.dlq"\}\) > 0$/);
    expect(reads('MediaforgeWebhookFailureRatio')).toEqual(['webhook_delivery_attempts_total']);
    expect(reads('MediaforgeHigh5xxRatio')).toEqual(['http_request_duration_seconds_count']);
    expect(reads('MediaforgeJobTimeouts')).toEqual(['jobs_timed_out_total']);
    for (const r of Object.values(byName)) {
      expect(['warning', 'critical']).toContain(r.labels.severity);
      expect(r.annotations.summary).toBeTruthy();
      expect(r.annotations.runbook).toMatch(/docs\/runbook\.md#alerts/);
    }
  });

  it('ships the Grafana dashboard as a ConfigMap Grafana’s sidecar loads, holding the JSON under deploy/', () => {
    const cm = prod.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('mediaforge-grafana-dashboard'))!;
    expect(cm.metadata.labels.grafana_dashboard).toBe('1');
    expect(JSON.parse(cm.data['mediaforge.json'])).toEqual(dashboard());
    const d = dashboard();
    expect(d.uid).toBe('mediaforge-overview');
    expect(d.templating.list.map((v: AnyObj) => v.name)).toEqual(['datasource', 'namespace']);
    const panels = (d.panels as AnyObj[]).filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(12);
    for (const p of panels) {
      expect(p.targets.length).toBeGreaterThan(0);
      expect(p.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
    }
    expect(new Set((d.panels as AnyObj[]).map((p) => p.id)).size).toBe(d.panels.length);
  });

  it('is left out of the dev overlay, which needs no Prometheus Operator', () => {
    expect(dev.filter((o) => ['ServiceMonitor', 'PrometheusRule'].includes(o.kind))).toEqual([]);
  });
});

describe('the monitoring expressions', () => {
  it('parse as PromQL, every one (alerts and dashboard panels alike)', () => {
    const exprs = monitoringExpressions();
    expect(exprs.length).toBeGreaterThan(25);
    for (const { where, expr } of exprs) expect([where, promqlMetricNames(expr).length > 0]).toEqual([where, true]);
  });

  it('read only series the services export', async () => {
    const exported = await exportedNames();
    const used = monitoringMetricNames();
    expect(used).toEqual(
      expect.arrayContaining(['bus_queue_messages_ready', 'webhook_delivery_attempts_total', 'jobs_timed_out_total']),
    );
    expect(used.filter((n) => !exported.has(n))).toEqual([]);
  });

  it('catch a misspelt series or a syntax error', async () => {
    const exported = await exportedNames();
    expect(promqlMetricNames('sum(rate(webhook_delivery_attempt_total[5m]))').filter((n) => !exported.has(n))).toEqual([
      'webhook_delivery_attempt_total',
    ]);
    expect(() => promqlMetricNames('sum(rate(http_request_duration_seconds_count[5m]) >')).toThrow(
      /PromQL syntax error/,
    );
  });
});
