/**
 * What npm run test:compose writes before `docker compose up`: the deployment's .env made from
 * .env.example as an operator would (the required secrets filled in, the published port and the
 * image tag chosen), and a test-only override that adds an https reference server to the project's
 * network (the editor imports its clip from it) and lets editor-agent trust and reach it.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** .env.example with `values` set: each replaces the line assigning it (commented or not), or is appended. */
export function envFromExample(example: string, values: Record<string, string>): string {
  const left = new Map(Object.entries(values));
  const lines = example.split('\n').map((line) => {
    const m = /^#?\s*([A-Z0-9_]+)=/.exec(line);
    if (!m || !left.has(m[1])) return line;
    const value = left.get(m[1])!;
    left.delete(m[1]);
    return `${m[1]}=${value}`;
  });
  return [...lines, ...[...left].map(([k, v]) => `${k}=${v}`)].join('\n') + '\n';
}

/** The deployment's secrets, generated as .env.example says (openssl rand -hex 32). */
export function deploymentSecrets(): Record<string, string> {
  return {
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    PROVIDER_CALLBACK_SECRET: randomBytes(32).toString('hex'),
  };
}

const REFERENCE_SERVER = `
const fs = require('node:fs');
const https = require('node:https');
const tls = { key: fs.readFileSync('/ref/key.pem'), cert: fs.readFileSync('/ref/cert.pem') };
https
  .createServer(tls, (req, res) => {
    if (req.url !== '/ref.png') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' });
    fs.createReadStream('/ref/ref.png').pipe(res);
  })
  .listen(8443, () => console.log('reference server on :8443'));
`;

/**
 * Writes the reference server's files (a certificate for the host name `reference`, a PNG, the
 * server) into `dir/ref` and the override file; returns the override's path. `image` runs the server
 * (any image with node).
 */
export function writeTestOverride(dir: string, image: string): string {
  const ref = path.join(dir, 'ref');
  fs.mkdirSync(ref, { recursive: true });
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=reference',
      '-addext',
      'subjectAltName=DNS:reference',
      '-keyout',
      path.join(ref, 'key.pem'),
      '-out',
      path.join(ref, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=640x480:rate=1',
    '-frames:v',
    '1',
    '-y',
    path.join(ref, 'ref.png'),
  ]);
  fs.writeFileSync(path.join(ref, 'server.js'), REFERENCE_SERVER);
  // The containers run as uid 1000: everything readable by all.
  fs.chmodSync(ref, 0o755);
  for (const f of fs.readdirSync(ref)) fs.chmodSync(path.join(ref, f), 0o644);
  const override = path.join(dir, 'docker-compose.test.yml');
  fs.writeFileSync(
    override,
    `# Test only (npm run test:compose): an https server the editor imports its clip from.
services:
  reference:
    image: ${image}
    # tini as PID 1, as the services have: node alone as PID 1 would ignore SIGTERM and hold down -v for the grace period.
    init: true
    command: ["node", "/ref/server.js"]
    volumes:
      - ${ref}:/ref:ro
  editor-agent:
    environment:
      # The reference server has a private address and a certificate of its own. Production refuses
      # private URLs, so this container runs as development (NODE_ENV only gates such refusals).
      NODE_ENV: development
      ALLOW_PRIVATE_URLS: "true"
      NODE_EXTRA_CA_CERTS: /ref/cert.pem
    volumes:
      - ${ref}:/ref:ro
`,
  );
  return override;
}
