/**
 * Queue-length autoscaling (deploy/k8s/components/keda): KEDA ScaledObjects on the real queues of
 * jobs, export-renderer and webhook-dispatcher in the prod overlay, the gateway's CPU HPA kept, and
 * exactly one owner of every Deployment's replica count.
 */
import fs from 'node:fs';
import path from 'node:path';
import { QUEUES } from '../../libs/contracts/src/names';
import { k8sErrors, type K8sObject } from './support/k8s';
import { HAS_KUBECTL, kustomize } from './support/kubectl';
import { K8S_DIR } from './support/paths';

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const render = (overlay: string): AnyObj[] => (HAS_KUBECTL ? kustomize(path.join(K8S_DIR, 'overlays', overlay)) : []);
const of = (objs: AnyObj[], kind: string): AnyObj[] => objs.filter((o) => o.kind === kind);
const describeRendered = HAS_KUBECTL ? describe : describe.skip;

/** The queues each service's work arrives on, from the contracts (never a copied string). */
const WORK_QUEUES: Record<string, string[]> = {
  jobs: [QUEUES.jobsRpc, QUEUES.jobsProviderCallbacks],
  'export-renderer': [QUEUES.exportsRpc],
  'webhook-dispatcher': [QUEUES.webhooksJobEvents],
};

describeRendered('KEDA component in the prod overlay', () => {
  const prod = render('prod');
  const dev = render('dev');

  it('scales jobs, export-renderer and webhook-dispatcher on the length of their RabbitMQ work queues; every object is valid KEDA', () => {
    const scaled = of(prod, 'ScaledObject');
    expect(scaled.map((s) => s.spec.scaleTargetRef.name).sort()).toEqual([
      'export-renderer',
      'jobs',
      'webhook-dispatcher',
    ]);
    expect(k8sErrors([...scaled, ...of(prod, 'TriggerAuthentication')] as K8sObject[])).toEqual([]);
    for (const so of scaled) {
      expect(so.apiVersion).toBe('keda.sh/v1alpha1');
      expect(so.metadata.namespace).toBe('mediaforge');
      expect(so.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
      const rabbit = so.spec.triggers.filter((t: AnyObj) => t.type === 'rabbitmq');
      expect(rabbit.map((t: AnyObj) => t.metadata.queueName)).toEqual(WORK_QUEUES[so.spec.scaleTargetRef.name]);
      for (const trigger of rabbit) {
        expect(trigger.metadata).toMatchObject({ mode: 'QueueLength', protocol: 'http' });
        expect(Number(trigger.metadata.value)).toBeGreaterThan(0);
        expect(trigger.authenticationRef.name).toBe('rabbitmq-management');
      }
      expect(so.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(so.spec.maxReplicaCount).toBeGreaterThan(so.spec.minReplicaCount);
    }
  });

  it('scales webhook-dispatcher on its lane backlog too: a Prometheus trigger on the largest webhook_attempts_pending', () => {
    const [dispatcher] = of(prod, 'ScaledObject').filter((s) => s.spec.scaleTargetRef.name === 'webhook-dispatcher');
    const prometheus = dispatcher.spec.triggers.filter((t: AnyObj) => t.type === 'prometheus');
    expect(prometheus).toHaveLength(1);
    const { serverAddress, query, threshold } = prometheus[0].metadata;
    expect(new URL(serverAddress).protocol).toBe('http:');
    // Every replica reports the same count (the lanes are shared): max, not sum.
    expect(query).toBe('max(webhook_attempts_pending{namespace="mediaforge"})');
    expect(Number(threshold)).toBeGreaterThan(0);
    // The metric is the one the dispatcher exports.
    const metrics = fs.readFileSync(
      path.join(__dirname, '../../services/webhook-dispatcher/src/lanes/lane-metrics.ts'),
      'utf8',
    );
    expect(metrics).toContain("name: 'webhook_attempts_pending'");
    // Only the dispatcher's backlog lives outside its queue.
    for (const so of of(prod, 'ScaledObject').filter((s) => s !== dispatcher))
      expect(so.spec.triggers.map((t: AnyObj) => t.type)).not.toContain('prometheus');
  });

  it('reads the broker URL from a Secret the overlay never contains', () => {
    const [auth] = of(prod, 'TriggerAuthentication');
    expect(auth.spec.secretTargetRef).toEqual([{ parameter: 'host', name: 'keda-rabbitmq', key: 'host' }]);
    expect(of(prod, 'Secret')).toEqual([]);
  });

  it('keeps the CPU HPA for the gateway only, so no Deployment has two autoscalers', () => {
    expect(of(prod, 'HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name)).toEqual(['gateway']);
    const owners = [...of(prod, 'HorizontalPodAutoscaler'), ...of(prod, 'ScaledObject')].map(
      (o) => o.spec.scaleTargetRef.name,
    );
    expect(new Set(owners).size).toBe(owners.length);
  });

  it('leaves the replica count of every autoscaled Deployment to its autoscaler (kubectl apply would reset it)', () => {
    const autoscaled = new Set(
      [...of(prod, 'HorizontalPodAutoscaler'), ...of(prod, 'ScaledObject')].map((o) => o.spec.scaleTargetRef.name),
    );
    for (const d of of(prod, 'Deployment')) {
      if (autoscaled.has(d.metadata.name)) expect(d.spec.replicas).toBeUndefined();
      else expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
    }
  });

  it('is left out of the dev overlay, which keeps the CPU HPAs and needs no KEDA in the cluster', () => {
    expect(of(dev, 'ScaledObject')).toEqual([]);
    expect(
      of(dev, 'HorizontalPodAutoscaler')
        .map((h) => h.spec.scaleTargetRef.name)
        .sort(),
    ).toEqual(['export-renderer', 'gateway', 'jobs']);
  });
});
