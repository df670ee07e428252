import type { StorageConfig } from './config';
import { LocalStorage } from './local';
import type { Storage } from './types';

export type { ByteRange, Storage, StoredObject } from './types';
export { InvalidStorageKeyError, StorageNotFoundError } from './types';
export { isValidKey, isValidPrefix, MAX_KEY_LENGTH } from './keys';
export { storageConfigFromEnv, storageEnv } from './config';
export type { LocalStorageConfig, S3StorageConfig, StorageConfig, StorageEnv } from './config';

export function createStorage(config: StorageConfig): Storage {
  switch (config.driver) {
    case 'local':
      return new LocalStorage(config.dir);
    case 's3': {
      // The minio client (with its XML parsers) loads only where S3 is configured: it is several
      // MiB of an idle service's heap (the memory bench, bench/README.md).
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
      const { S3Storage } = require('./s3') as typeof import('./s3');
      return new S3Storage(config);
    }
    default:
      throw new Error(`Unknown storage driver: ${JSON.stringify((config as { driver?: unknown }).driver)}`);
  }
}
