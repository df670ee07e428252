// s3rver ships no types; this covers the part the tests use.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    /** Its filesystem store (internal, patched by the tests' support). */
    store: { deleteObject(bucket: string, key: string): Promise<void> };
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }

  export = S3rver;
}
