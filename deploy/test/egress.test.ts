/**
 * Egress the base NetworkPolicies do not open, added by the components an overlay includes:
 * in-cluster providers (ComfyUI for jobs, Ollama for editor-agent) and an S3 endpoint outside the
 * cluster. Rendered as an overlay of prod plus the component, as docs/runbook.md says to do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { k8sErrors } from './support/k8s';
import { HAS_KUBECTL, kustomize } from './support/kubectl';
import { K8S_DIR } from './support/paths';

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const describeRendered = HAS_KUBECTL ? describe : describe.skip;

/** prod with `components` added, rendered from a kustomization of its own (as an operator's overlay). */
function prodWith(components: string[]): AnyObj[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-overlay-'));
  try {
    const rel = (p: string): string => path.relative(dir, path.join(K8S_DIR, p));
    fs.writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'resources:',
        `  - ${rel('overlays/prod')}`,
        'components:',
        ...components.map((c) => `  - ${rel(`components/${c}`)}`),
        '',
      ].join('\n'),
    );
    return kustomize(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const policy = (objs: AnyObj[], name: string): AnyObj =>
  objs.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === name)!;
const egressPorts = (np: AnyObj): number[] => np.spec.egress.flatMap((r: AnyObj) => r.ports.map((p: AnyObj) => p.port));

describeRendered('egress components (added to an overlay)', () => {
  const prod = HAS_KUBECTL ? prodWith([]) : [];

  it('leaves in-cluster providers closed without the component: jobs and editor-agent reach no ComfyUI or Ollama port', () => {
    expect(egressPorts(policy(prod, 'jobs'))).not.toContain(8188);
    expect(egressPorts(policy(prod, 'editor-agent'))).not.toContain(11434);
  });

  it('egress-in-cluster-providers: jobs to ComfyUI pods (8188), editor-agent to Ollama pods (11434), every other rule kept', () => {
    const objs = prodWith(['egress-in-cluster-providers']);
    expect(k8sErrors(objs.filter((o) => o.kind === 'NetworkPolicy'))).toEqual([]);
    const jobs = policy(objs, 'jobs');
    expect(jobs.spec.egress).toEqual([
      ...policy(prod, 'jobs').spec.egress,
      {
        to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'mediaforge.io/role': 'comfyui' } } }],
        ports: [{ protocol: 'TCP', port: 8188 }],
      },
    ]);
    const editor = policy(objs, 'editor-agent');
    expect(editor.spec.egress).toEqual([
      ...policy(prod, 'editor-agent').spec.egress,
      {
        to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'mediaforge.io/role': 'ollama' } } }],
        ports: [{ protocol: 'TCP', port: 11434 }],
      },
    ]);
    for (const other of ['gateway', 'billing', 'export-renderer', 'webhook-dispatcher'])
      expect(policy(objs, other)).toEqual(policy(prod, other));
  });

  it('egress-external-s3: the four services that touch media reach the S3 endpoint’s addresses, the others nothing new', () => {
    const objs = prodWith(['egress-external-s3']);
    expect(k8sErrors(objs.filter((o) => o.kind === 'NetworkPolicy'))).toEqual([]);
    for (const s of ['gateway', 'jobs', 'editor-agent', 'export-renderer'])
      expect(policy(objs, s).spec.egress.at(-1)).toEqual({
        to: [{ ipBlock: { cidr: '192.0.2.0/24' } }],
        ports: [{ protocol: 'TCP', port: 443 }],
      });
    for (const s of ['billing', 'webhook-dispatcher']) expect(policy(objs, s)).toEqual(policy(prod, s));
  });
});
