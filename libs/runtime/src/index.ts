export { createRegistry, mountHealth } from './health';
export type { ReadinessCheck } from './health';
export { listen, closeServer } from './server';
export type { ListenOptions } from './server';
export { onShutdown } from './shutdown';
export type { ShutdownStep } from './shutdown';
export { startService, runMain } from './service';
export type { ServiceHandle, ServiceSpec, ServiceDeps, BaseServiceConfig } from './service';
