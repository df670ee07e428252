export { SERVICES, REPO_ROOT, serviceBuildEntry, serviceEntry } from './services';
export type { ServiceName } from './services';
export { startServiceProcess, waitReady } from './service-process';
export type { ServiceForm, ServiceOutput, ServiceProcess } from './service-process';
