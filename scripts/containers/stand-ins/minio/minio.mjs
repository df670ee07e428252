#!/usr/bin/env node
// `minio server <dir> [--address :9000] [--console-address :9001]` as the minio/minio image runs it,
// answered by s3rver (the S3 API from the npm registry) with MINIO_ROOT_USER / MINIO_ROOT_PASSWORD
// as its only access key. Tests only: no console, no erasure coding, no policies.
import { setTimeout } from 'node:timers';
import S3rver from 's3rver';
import AWSAccount from 's3rver/lib/models/account.js';

const args = process.argv.slice(2);
if (args[0] !== 'server' || !args[1]) {
  console.error('usage: minio server <dir> [--address :9000] [--console-address :9001]');
  process.exit(2);
}
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i > 0 && args[i + 1] ? args[i + 1] : fallback;
};
const port = Number(option('--address', ':9000').split(':').pop());
const user = process.env.MINIO_ROOT_USER || 'minioadmin';
const password = process.env.MINIO_ROOT_PASSWORD || 'minioadmin';

AWSAccount.DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
AWSAccount.DUMMY_ACCOUNT.createKeyPair(user, password);
// Path-style only: with virtual hosts on, a request to http://minio:9000 would be read as bucket "minio".
const server = new S3rver({ address: '0.0.0.0', port, directory: args[1], silent: true, vhostBuckets: false });
server.run().then(
  () => console.log(`S3-API: http://0.0.0.0:${port} (s3rver stand-in for MinIO; data in ${args[1]})`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
// close() waits for idle keep-alive connections of the clients: give it a second, then exit anyway.
const stop = () => {
  setTimeout(() => process.exit(0), 1000).unref();
  server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
