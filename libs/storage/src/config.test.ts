import path from 'node:path';
import Joi from 'joi';
import { storageConfigFromEnv, storageEnv, type StorageEnv } from './config';

/** Validates the way @mf/config's loadConfig does: one object, unknown variables dropped. */
function validate(env: Record<string, string>): { value: StorageEnv; error?: Joi.ValidationError } {
  const { value, error } = Joi.object(storageEnv).validate(env, {
    abortEarly: false,
    allowUnknown: true,
    stripUnknown: true,
    convert: true,
  });
  return { value: value as StorageEnv, error };
}

describe('storageEnv', () => {
  it('defaults to the local driver in .data/media', () => {
    expect(validate({})).toEqual({
      value: { STORAGE_DRIVER: 'local', STORAGE_DIR: '.data/media', S3_BUCKET: 'mediaforge', S3_REGION: 'us-east-1' },
      error: undefined,
    });
  });

  it('accepts a complete s3 configuration', () => {
    const env = {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY: 'key',
      S3_SECRET_KEY: 'secret',
      S3_BUCKET: 'media',
      S3_REGION: 'eu-west-1',
    };
    expect(validate(env)).toEqual({ value: { ...env, STORAGE_DIR: '.data/media' }, error: undefined });
  });

  it('requires the endpoint and both keys with the s3 driver, naming each', () => {
    const { error } = validate({ STORAGE_DRIVER: 's3' });
    expect(error?.details.map((d) => d.path.join('.')).sort()).toEqual([
      'S3_ACCESS_KEY',
      'S3_ENDPOINT',
      'S3_SECRET_KEY',
    ]);
  });

  it('does not require S3 variables with the local driver', () => {
    expect(validate({ STORAGE_DRIVER: 'local' }).error).toBeUndefined();
  });

  it.each([
    ['an unknown driver', { STORAGE_DRIVER: 'gcs' }, 'STORAGE_DRIVER'],
    [
      'an endpoint that is not a URL',
      { STORAGE_DRIVER: 's3', S3_ENDPOINT: 'minio:9000', S3_ACCESS_KEY: 'k', S3_SECRET_KEY: 's' },
      'S3_ENDPOINT',
    ],
    [
      'an endpoint that is not http(s)',
      { STORAGE_DRIVER: 's3', S3_ENDPOINT: 'ftp://minio', S3_ACCESS_KEY: 'k', S3_SECRET_KEY: 's' },
      'S3_ENDPOINT',
    ],
    ['a bucket name S3 would refuse', { S3_BUCKET: 'Media_Bucket' }, 'S3_BUCKET'],
    ['an empty directory', { STORAGE_DIR: '' }, 'STORAGE_DIR'],
  ])('rejects %s', (_what, env, variable) => {
    expect(validate(env).error?.details.map((d) => d.path.join('.'))).toEqual([variable]);
  });
});

describe('storageConfigFromEnv', () => {
  const base: StorageEnv = {
    STORAGE_DRIVER: 'local',
    STORAGE_DIR: '.data/media',
    S3_BUCKET: 'mediaforge',
    S3_REGION: 'us-east-1',
  };

  it('resolves a relative local directory against the working directory', () => {
    expect(storageConfigFromEnv(base)).toEqual({ driver: 'local', dir: path.join(process.cwd(), '.data/media') });
  });

  it('keeps an absolute local directory as it is', () => {
    expect(storageConfigFromEnv({ ...base, STORAGE_DIR: '/srv/media' })).toEqual({
      driver: 'local',
      dir: '/srv/media',
    });
  });

  it('builds the s3 configuration from the S3 variables', () => {
    const env: StorageEnv = {
      ...base,
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: 'https://s3.example.com',
      S3_ACCESS_KEY: 'k',
      S3_SECRET_KEY: 's',
      S3_BUCKET: 'b-1',
      S3_REGION: 'eu-west-1',
    };
    expect(storageConfigFromEnv(env)).toEqual({
      driver: 's3',
      endpoint: 'https://s3.example.com',
      accessKey: 'k',
      secretKey: 's',
      bucket: 'b-1',
      region: 'eu-west-1',
    });
  });

  it('refuses s3 without an endpoint even when the schema was skipped', () => {
    expect(() =>
      storageConfigFromEnv({ ...base, STORAGE_DRIVER: 's3', S3_ACCESS_KEY: 'k', S3_SECRET_KEY: 's' }),
    ).toThrow('S3_ENDPOINT is required');
  });
});
