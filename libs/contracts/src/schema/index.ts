export * from './rules';
export * from './validate';
export * from './json-schema';
