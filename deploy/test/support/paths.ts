import path from 'node:path';
import { SERVICE_NAMES } from '@mf/fleet';

/** The repository root (deploy/test/support -> ../../..). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const K8S_DIR = path.join(REPO_ROOT, 'deploy', 'k8s');
/** The services' names (libs/fleet's list). */
export const SERVICES = SERVICE_NAMES;
