export {
  SERVICE_NAMES,
  SERVICES,
  REPO_ROOT,
  COMPILED_ENV,
  COMPILED_NODE_FLAGS,
  serviceBuildEntry,
  serviceEntry,
} from './services';
export type { ServiceName } from './services';
export { startServiceProcess, waitReady } from './service-process';
export type { ServiceForm, ServiceOutput, ServiceProcess } from './service-process';
