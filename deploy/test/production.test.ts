/**
 * The prod overlay deploys a real setup: jobs reads a providers document (no local provider), and
 * the rendered configuration with the example Secrets passes every service's own start-up check
 * under NODE_ENV=production, as the images run it. The examples (a Secret per service, an
 * ExternalSecret creating each) stay in step with what the Deployments reference.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBillingConfig } from '../../services/billing/src/config';
import { loadEditorAgentConfig } from '../../services/editor-agent/src/config';
import { loadExportRendererConfig } from '../../services/export-renderer/src/config';
import { loadGatewayConfig } from '../../services/gateway/src/config';
import { loadJobsConfig } from '../../services/jobs/src/config';
import { loadWebhookDispatcherConfig } from '../../services/webhook-dispatcher/src/config';
import { parseYamlDocuments, podSpec, yamlFiles, type K8sObject } from './support/k8s';
import { HAS_KUBECTL, kustomize } from './support/kubectl';
import { K8S_DIR, SERVICES } from './support/paths';

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const EXAMPLES = path.join(K8S_DIR, 'examples');
const prod = HAS_KUBECTL ? kustomize(path.join(K8S_DIR, 'overlays', 'prod')) : [];
const describeRendered = HAS_KUBECTL ? describe : describe.skip;
const get = (kind: string, name: string): AnyObj => {
  const o = prod.find((x) => x.kind === kind && x.metadata?.name === name);
  if (!o) throw new Error(`no ${kind}/${name}`);
  return o;
};
const examples = (dir: string): AnyObj[] =>
  yamlFiles(path.join(EXAMPLES, dir)).flatMap((f) => parseYamlDocuments(fs.readFileSync(f, 'utf8'), f) as AnyObj[]);
const exampleSecret = (name: string): AnyObj => {
  const s = examples('secrets').find((o) => o.metadata.name === name);
  if (!s) throw new Error(`no example Secret ${name}`);
  return s;
};

/** A placeholder's stand-in value that each service's schema accepts (a URL keeps its shape). */
function filled(value: string, key: string): string {
  if (key === 'WEBHOOK_SECRET_KEY') return 'ab'.repeat(32);
  return value.replace(/REPLACE_WITH_[A-Z0-9_]+/g, 'filled-in-by-the-operator-0123456789');
}

const LOADERS: Record<(typeof SERVICES)[number], (env: NodeJS.ProcessEnv) => unknown> = {
  gateway: loadGatewayConfig,
  billing: loadBillingConfig,
  jobs: loadJobsConfig,
  'editor-agent': loadEditorAgentConfig,
  'export-renderer': loadExportRendererConfig,
  'webhook-dispatcher': loadWebhookDispatcherConfig,
};

describeRendered('the prod overlay (kubectl kustomize)', () => {
  it('mounts the providers document into jobs as PROVIDERS_FILE, from a generated ConfigMap, and sets no PROVIDER', () => {
    const config = get('ConfigMap', 'jobs-config').data;
    expect(config).not.toHaveProperty('PROVIDER');
    expect(config).not.toHaveProperty('ALLOW_LOCAL_PROVIDER');
    expect(config).not.toHaveProperty('NODE_ENV');
    const jobs = podSpec(get('Deployment', 'jobs')) as AnyObj;
    const mount = jobs.containers[0].volumeMounts.find((m: AnyObj) => m.name === 'providers');
    expect(mount).toMatchObject({ readOnly: true });
    expect(config.PROVIDERS_FILE).toBe(`${mount.mountPath}/providers.yaml`);
    const volume = jobs.volumes.find((v: AnyObj) => v.name === 'providers');
    // The generator's hash suffix: a changed document rolls the Deployment.
    expect(volume.configMap.name).toMatch(/^jobs-providers-[a-z0-9]{10}$/);
    const generated = get('ConfigMap', volume.configMap.name);
    expect(generated.data['providers.yaml']).toBe(
      fs.readFileSync(path.join(K8S_DIR, 'overlays', 'prod', 'files', 'providers.yaml'), 'utf8'),
    );
  });

  it('passes every service’s own configuration check under NODE_ENV=production with the example Secrets filled in', () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-prod-config-'));
    try {
      for (const s of SERVICES) {
        const secret = Object.fromEntries(
          Object.entries(exampleSecret(`${s}-secrets`).stringData as Record<string, string>).map(([k, v]) => [
            k,
            filled(v, k),
          ]),
        );
        const env: NodeJS.ProcessEnv = { ...get('ConfigMap', `${s}-config`).data, ...secret, NODE_ENV: 'production' };
        if (s === 'jobs') {
          // The mounted file, where the test can read it.
          const mounted = path.join(scratch, 'providers.yaml');
          const volume = (podSpec(get('Deployment', 'jobs')) as AnyObj).volumes.find(
            (v: AnyObj) => v.name === 'providers',
          );
          fs.writeFileSync(mounted, get('ConfigMap', volume.configMap.name).data['providers.yaml']);
          env.PROVIDERS_FILE = mounted;
        }
        expect(() => LOADERS[s](env)).not.toThrow();
      }
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('routes every model through real upstreams with a fallback: Replicate, OpenRouter and OpenAI images, never the local provider', () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-prod-providers-'));
    try {
      const file = path.join(scratch, 'providers.yaml');
      fs.copyFileSync(path.join(K8S_DIR, 'overlays', 'prod', 'files', 'providers.yaml'), file);
      const secret = exampleSecret('jobs-secrets').stringData as Record<string, string>;
      const env = Object.fromEntries(Object.entries(secret).map(([k, v]) => [k, filled(v, k)]));
      const { routing } = loadJobsConfig({ ...env, NODE_ENV: 'production', PROVIDERS_FILE: file });
      expect([...routing.providers.values()].map((p) => p.type).sort()).toEqual([
        'openai-images',
        'openrouter',
        'replicate',
      ]);
      for (const [model, routes] of Object.entries(routing.routes)) {
        expect([model, routes.length >= 2]).toEqual([model, true]);
        expect(new Set(routes.map((r) => r.provider)).size).toBe(routes.length);
      }
      // Without the key variables the document names, jobs refuses to start, naming one.
      expect(() =>
        loadJobsConfig({ ...env, OPENAI_API_KEY: '', NODE_ENV: 'production', PROVIDERS_FILE: file }),
      ).toThrow(/OPENAI_API_KEY is not set/);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('deploy/k8s/examples: Secrets and External Secrets', () => {
  it('has an example Secret per service (and KEDA’s), each the Secret its Deployment reads, every secret value a placeholder', () => {
    const names = examples('secrets')
      .map((s) => s.metadata.name)
      .sort();
    expect(names).toEqual([...SERVICES.map((s) => `${s}-secrets`), 'keda-rabbitmq'].sort());
    for (const s of examples('secrets')) {
      expect(s).toMatchObject({ kind: 'Secret', type: 'Opaque', metadata: { namespace: 'mediaforge' } });
      for (const [key, value] of Object.entries(s.stringData as Record<string, string>)) {
        // Only the non-secret model settings are given as they would be.
        if (['LLM_BASE_URL', 'LLM_MODEL'].includes(key)) continue;
        expect([key, value]).toEqual([key, expect.stringMatching(/REPLACE_WITH_[A-Z0-9_]+/)]);
      }
    }
    if (HAS_KUBECTL)
      for (const d of prod.filter((o: K8sObject) => o.kind === 'Deployment') as AnyObj[]) {
        const ref = d.spec.template.spec.containers[0].envFrom.find((e: AnyObj) => e.secretRef).secretRef.name;
        exampleSecret(ref);
      }
  });

  it('holds in jobs-secrets every key variable the providers document names', () => {
    const doc = fs.readFileSync(path.join(K8S_DIR, 'overlays', 'prod', 'files', 'providers.yaml'), 'utf8');
    const named = [...doc.matchAll(/_env: ([A-Z0-9_]+)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(3);
    expect(Object.keys(exampleSecret('jobs-secrets').stringData)).toEqual(expect.arrayContaining(named));
  });

  it('has an ExternalSecret per example Secret, creating it with exactly its keys from the one ClusterSecretStore', () => {
    const external = examples('external-secrets');
    const stores = external.filter((o) => o.kind === 'ClusterSecretStore');
    expect(stores.map((s) => s.metadata.name)).toEqual(['mediaforge']);
    for (const secret of examples('secrets')) {
      const es = external.find((o) => o.kind === 'ExternalSecret' && o.spec.target.name === secret.metadata.name);
      expect(es).toMatchObject({ metadata: { namespace: secret.metadata.namespace } });
      expect(es!.spec.secretStoreRef).toEqual({ kind: 'ClusterSecretStore', name: 'mediaforge' });
      expect(es!.spec.data.map((d: AnyObj) => d.secretKey)).toEqual(Object.keys(secret.stringData));
    }
  });
});
