export * from './models';
export * from './fal-endpoints';
export * from './validate-request';
