export * from './names';
export * from './envelope';
export * from './rpc';
export * from './billing';
export * from './job-events';
export * from './jobs';
export * from './webhooks';
export * from './editor';
