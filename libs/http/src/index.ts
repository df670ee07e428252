export { createHttpApp, finish, toAppError, route, requestId, jsonBody } from './app';
export type { HttpAppOptions } from './app';
