import path from 'node:path';
import Joi from 'joi';

export type LocalStorageConfig = { driver: 'local'; dir: string };
export type S3StorageConfig = {
  driver: 's3';
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region?: string;
};
export type StorageConfig = LocalStorageConfig | S3StorageConfig;

/** The validated variables of `storageEnv` (S3_* only matter, and are only required, with the s3 driver). */
export interface StorageEnv {
  STORAGE_DRIVER: 'local' | 's3';
  STORAGE_DIR: string;
  S3_ENDPOINT?: string;
  S3_ACCESS_KEY?: string;
  S3_SECRET_KEY?: string;
  S3_BUCKET: string;
  S3_REGION: string;
}

const whenS3 = (schema: Joi.Schema) =>
  schema.when('STORAGE_DRIVER', { is: 's3', then: Joi.required(), otherwise: Joi.optional() });

/** Joi keys for a service's config schema: spread them into its `Joi.object({...})`. */
export const storageEnv: Record<keyof StorageEnv, Joi.Schema> = {
  /** Where media lives: 'local' (a directory) or 's3' (any S3 API: MinIO, AWS, R2...). */
  STORAGE_DRIVER: Joi.string().valid('local', 's3').default('local'),
  /** Local driver's directory, relative to the working directory unless absolute. */
  STORAGE_DIR: Joi.string().min(1).default('.data/media'),
  /** S3 API base URL, e.g. http://minio:9000 (scheme and port give TLS and port); required with s3. */
  S3_ENDPOINT: whenS3(Joi.string().uri({ scheme: ['http', 'https'] })),
  /** S3 access key id; required with s3. */
  S3_ACCESS_KEY: whenS3(Joi.string().min(1)),
  /** S3 secret key; required with s3. */
  S3_SECRET_KEY: whenS3(Joi.string().min(1)),
  /** Bucket for all media, created on first use if missing (S3 bucket naming rules). */
  S3_BUCKET: Joi.string()
    .pattern(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/)
    .default('mediaforge'),
  /** Region signed into requests and used when creating the bucket (MinIO ignores it). */
  S3_REGION: Joi.string().min(1).default('us-east-1'),
};

/** Turns validated environment variables into a `createStorage` config. */
export function storageConfigFromEnv(env: StorageEnv): StorageConfig {
  if (env.STORAGE_DRIVER === 'local') {
    return { driver: 'local', dir: path.resolve(process.cwd(), env.STORAGE_DIR || '.data/media') };
  }
  if (env.STORAGE_DRIVER !== 's3')
    throw new Error(`STORAGE_DRIVER: unknown driver ${JSON.stringify(env.STORAGE_DRIVER)}`);
  // Joi already requires these with s3; checked again for callers that skip the schema.
  const { S3_ENDPOINT: endpoint, S3_ACCESS_KEY: accessKey, S3_SECRET_KEY: secretKey } = env;
  if (!endpoint) throw new Error('S3_ENDPOINT is required when STORAGE_DRIVER is s3');
  if (!accessKey) throw new Error('S3_ACCESS_KEY is required when STORAGE_DRIVER is s3');
  if (!secretKey) throw new Error('S3_SECRET_KEY is required when STORAGE_DRIVER is s3');
  return {
    driver: 's3',
    endpoint,
    accessKey,
    secretKey,
    bucket: env.S3_BUCKET || 'mediaforge',
    region: env.S3_REGION || 'us-east-1',
  };
}
