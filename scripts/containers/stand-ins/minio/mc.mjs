#!/usr/bin/env node
// The MinIO client commands the compose file and npm run test:compose use, over the minio npm client:
//   mc alias set <alias> <url> <access-key> <secret-key>
//   mc mb [--ignore-existing] <alias>/<bucket>
//   mc ready <alias>                    (exit 0 once the server answers)
//   mc stat [--json] <alias>/<bucket>/<object>
// Aliases live in ~/.mc/config.json (MC_CONFIG_DIR) as mc keeps them, or come from MC_HOST_<alias>;
// `local` is this machine's port 9000 unless set otherwise, as in mc's default configuration.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as Minio from 'minio';

const configFile = path.join(process.env.MC_CONFIG_DIR || path.join(os.homedir(), '.mc'), 'config.json');
const readConfig = () => {
  try {
    return JSON.parse(fs.readFileSync(configFile, 'utf8'));
  } catch {
    return { version: '10', aliases: {} };
  }
};

function alias(name) {
  const fromEnv = process.env[`MC_HOST_${name}`];
  if (fromEnv) {
    const u = new URL(fromEnv);
    return {
      url: `${u.protocol}//${u.host}`,
      accessKey: decodeURIComponent(u.username),
      secretKey: decodeURIComponent(u.password),
    };
  }
  const found = readConfig().aliases[name];
  if (found) return found;
  if (name === 'local') return { url: 'http://127.0.0.1:9000', accessKey: '', secretKey: '' };
  throw new Error(`mc: alias ${name} is not set`);
}

function client(name) {
  const a = alias(name);
  const u = new URL(a.url);
  return new Minio.Client({
    endPoint: u.hostname,
    port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)),
    useSSL: u.protocol === 'https:',
    accessKey: a.accessKey,
    secretKey: a.secretKey,
    // As the services set it: no request for the bucket's region first.
    region: 'us-east-1',
    pathStyle: true,
  });
}

/** "alias/bucket/key/parts" -> [alias, bucket, key]. */
function target(spec) {
  const [name, bucket, ...rest] = spec.split('/');
  return [name, bucket, rest.join('/')];
}

async function main(argv) {
  const flags = argv.filter((a) => a.startsWith('--'));
  const [command, ...args] = argv.filter((a) => !a.startsWith('--'));
  if (command === 'alias' && args[0] === 'set' && args.length === 5) {
    const config = readConfig();
    config.aliases[args[1]] = { url: args[2], accessKey: args[3], secretKey: args[4], api: 's3v4', path: 'auto' };
    fs.mkdirSync(path.dirname(configFile), { recursive: true });
    fs.writeFileSync(configFile, JSON.stringify(config, null, 2), { mode: 0o600 });
    console.log(`Added \`${args[1]}\` successfully.`);
  } else if (command === 'mb' && args.length === 1) {
    const [name, bucket] = target(args[0]);
    const c = client(name);
    if (await c.bucketExists(bucket)) {
      if (!flags.includes('--ignore-existing')) throw new Error(`mc: bucket ${bucket} already exists`);
      console.log(`Bucket created successfully \`${args[0]}\`.`);
      return;
    }
    await c.makeBucket(bucket);
    console.log(`Bucket created successfully \`${args[0]}\`.`);
  } else if (command === 'ready' && args.length === 1) {
    const res = await fetch(alias(args[0]).url, { signal: AbortSignal.timeout(4000) });
    console.log(`The cluster is ready (HTTP ${res.status})`);
  } else if (command === 'stat' && args.length === 1) {
    const [name, bucket, key] = target(args[0]);
    const stat = await client(name).statObject(bucket, key);
    const out = {
      status: 'success',
      name: key,
      size: stat.size,
      etag: stat.etag,
      type: 'file',
      metadata: stat.metaData,
    };
    console.log(
      flags.includes('--json') ? JSON.stringify(out) : `Name: ${key}\nSize: ${stat.size} B\nETag: ${stat.etag}`,
    );
  } else {
    throw new Error(`mc stand-in: unsupported command: mc ${argv.join(' ')}`);
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err.message || String(err));
  process.exit(1);
});
