export { infra } from './infra';
export type { Infra } from './infra';
export {
  createTestDatabase,
  createTestVhost,
  dropStaleTestResources,
  dropTestDatabase,
  dropTestVhost,
  TEST_DB_PREFIX,
} from './fresh';
export type { TestDatabase, TestVhost } from './fresh';
export { freshTestEnv } from './env';
export type { TestEnv } from './env';
export { recordingLogger, silentLogger } from './logger';
export { FakeBilling } from './fake-billing';
export { freePort } from './free-port';
