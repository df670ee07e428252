import path from 'node:path';

/** The repository root (deploy/test/support -> ../../..). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const K8S_DIR = path.join(REPO_ROOT, 'deploy', 'k8s');
export const SERVICES = [
  'gateway',
  'billing',
  'jobs',
  'editor-agent',
  'export-renderer',
  'webhook-dispatcher',
] as const;
