/**
 * The monitoring component read as Prometheus and Grafana would: every PromQL expression of the
 * alert rules and of the dashboard parsed by Prometheus's own grammar (@prometheus-io/lezer-promql),
 * and the metric names they select. Shared by the deploy checks and npm run test:compose, which
 * compares the names with what the running services export.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parseYamlDocuments } from './k8s';
import { K8S_DIR } from './paths';

export const MONITORING_DIR = path.join(K8S_DIR, 'components', 'monitoring');

/** Series Prometheus makes itself, never exported by a service. */
export const PROMETHEUS_SERIES = new Set(['up']);

/** Grafana's variables replaced by values PromQL accepts ($__rate_interval in a range, $namespace in a matcher). */
function withoutGrafanaVariables(expr: string): string {
  return expr.replace(/\$__(rate_)?interval/g, '5m').replace(/\$\{?\w+\}?/g, 'x');
}

/** The metric names an expression selects; throws, naming the position, when it does not parse. */
export function promqlMetricNames(expr: string): string[] {
  const text = withoutGrafanaVariables(expr);
  const names = new Set<string>();
  const errors: number[] = [];
  parser.parse(text).iterate({
    enter: (node) => {
      if (node.type.isError) errors.push(node.from);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        names.add(text.slice(node.from, node.to));
    },
  });
  if (errors.length)
    throw new Error(`PromQL syntax error at ${errors[0]}: ${text.slice(errors[0], errors[0] + 40)} in ${expr}`);
  return [...names];
}

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function prometheusRule(): AnyObj {
  const file = path.join(MONITORING_DIR, 'prometheusrule.yaml');
  return parseYamlDocuments(fs.readFileSync(file, 'utf8'), file)[0] as AnyObj;
}

export function dashboard(): AnyObj {
  return JSON.parse(fs.readFileSync(path.join(MONITORING_DIR, 'grafana-dashboard.json'), 'utf8')) as AnyObj;
}

/** Every expression of the rules and the dashboard, named by where it is. */
export function monitoringExpressions(): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  for (const group of prometheusRule().spec.groups as AnyObj[])
    for (const rule of group.rules as AnyObj[]) out.push({ where: `alert ${rule.alert}`, expr: String(rule.expr) });
  const d = dashboard();
  for (const panel of d.panels as AnyObj[])
    for (const t of (panel.targets ?? []) as AnyObj[])
      out.push({ where: `panel "${panel.title}"`, expr: String(t.expr) });
  for (const v of d.templating.list as AnyObj[])
    if (v.type === 'query')
      out.push({
        where: `variable ${v.name}`,
        expr: String(v.query.query).replace(/^label_values\((.*), *\w+\)$/, '$1'),
      });
  return out;
}

/** The metric names the rules and the dashboard need from the services (Prometheus's own series aside). */
export function monitoringMetricNames(): string[] {
  const names = new Set<string>();
  for (const { expr } of monitoringExpressions()) for (const n of promqlMetricNames(expr)) names.add(n);
  return [...names].filter((n) => !PROMETHEUS_SERIES.has(n)).sort();
}

/**
 * The series names a Prometheus text exposition offers, from its TYPE lines (a histogram's
 * _bucket, _sum and _count, a summary's _sum and _count), whether or not a sample was recorded yet.
 */
export function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const m of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m;
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}
