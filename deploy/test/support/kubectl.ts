/** `kubectl kustomize` (kustomize v5, built into kubectl): renders an overlay as the cluster would get it. */
import { spawnSync } from 'node:child_process';
import { parseYamlDocuments, type K8sObject } from './k8s';

/** Whether kubectl answers here. The kustomize checks are skipped, loudly, where it does not. */
export const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

if (!HAS_KUBECTL)
  console.warn(
    '\n*** SKIPPED: kubectl not found: the kustomize render checks of deploy/k8s do not run on this machine ***\n',
  );

/** The objects `kubectl kustomize <dir>` renders; throws with kustomize's own error. */
export function kustomize(dir: string): K8sObject[] {
  const res = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${(res.stderr || res.error?.message || '').trim()}`);
  return parseYamlDocuments(res.stdout, `kubectl kustomize ${dir}`) as K8sObject[];
}
