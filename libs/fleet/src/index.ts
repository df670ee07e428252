export { SERVICES, REPO_ROOT, serviceEntry } from './services';
export type { ServiceName } from './services';
export { startServiceProcess, waitReady } from './service-process';
export type { ServiceOutput, ServiceProcess } from './service-process';
