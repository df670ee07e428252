export * from './models';
export * from './fal-endpoints';
