// Validates Kubernetes objects with kubernetes-models and the models of the custom resources we use
// (@kubernetes-models/keda, /prometheus-operator, /external-secrets; ESM only, hence a child process of the
// jest tests): reads a JSON array of objects on stdin, writes a JSON array of
// { ok: true } | { ok: false, error } on stdout, one entry per object, in order.
// Each object is instantiated as the model class of its apiVersion + kind and validated
// (`new Deployment(obj).validate()`); a kind not in MODELS fails.
const MODELS = {
  'v1/ConfigMap': 'kubernetes-models/v1/ConfigMap',
  'v1/Secret': 'kubernetes-models/v1/Secret',
  'v1/Service': 'kubernetes-models/v1/Service',
  'v1/Namespace': 'kubernetes-models/v1/Namespace',
  'v1/ServiceAccount': 'kubernetes-models/v1/ServiceAccount',
  'apps/v1/Deployment': 'kubernetes-models/apps/v1/Deployment',
  'batch/v1/Job': 'kubernetes-models/batch/v1/Job',
  'autoscaling/v2/HorizontalPodAutoscaler': 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
  'policy/v1/PodDisruptionBudget': 'kubernetes-models/policy/v1/PodDisruptionBudget',
  'networking.k8s.io/v1/NetworkPolicy': 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy',
  'networking.k8s.io/v1/Ingress': 'kubernetes-models/networking.k8s.io/v1/Ingress',
  // KEDA's custom resources (deploy/k8s/components/keda), from its CRDs' schemas.
  'keda.sh/v1alpha1/ScaledObject': '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject',
  'keda.sh/v1alpha1/TriggerAuthentication': '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication',
  // The Prometheus Operator's (components/monitoring) and External Secrets' (examples/external-secrets).
  'monitoring.coreos.com/v1/ServiceMonitor':
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
  'monitoring.coreos.com/v1/PrometheusRule':
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
  'external-secrets.io/v1/ExternalSecret': '@kubernetes-models/external-secrets/external-secrets.io/v1/ExternalSecret',
  'external-secrets.io/v1/ClusterSecretStore':
    '@kubernetes-models/external-secrets/external-secrets.io/v1/ClusterSecretStore',
};

let input = '';
for await (const chunk of process.stdin) input += chunk;
const objects = JSON.parse(input);
const results = [];
for (const obj of objects) {
  const key = `${obj?.apiVersion}/${obj?.kind}`;
  const modulePath = MODELS[key];
  if (!modulePath) {
    results.push({ ok: false, error: `unknown kind ${key}` });
    continue;
  }
  try {
    const mod = await import(modulePath);
    const Model = mod[obj.kind];
    new Model(obj).validate();
    results.push({ ok: true });
  } catch (err) {
    results.push({ ok: false, error: String(err?.message ?? err) });
  }
}
process.stdout.write(JSON.stringify(results));
