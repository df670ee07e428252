import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface TestTls {
  key: string;
  cert: string;
  /** A file with the certificate, to trust through NODE_EXTRA_CA_CERTS. */
  caPath: string;
}

let made: Promise<TestTls> | null = null;

/**
 * Where the e2e globalSetup keeps the run's certificate (JSON of TestTls): one for every test file,
 * since a pooled fleet trusts the certificate it was started with (NODE_EXTRA_CA_CERTS).
 */
export const TLS_FILE_VAR = 'MF_E2E_TLS_FILE';

/** A self-signed certificate for 127.0.0.1 and localhost, made once per jest run (once per file outside one). */
export function testTls(): Promise<TestTls> {
  const shared = process.env[TLS_FILE_VAR];
  if (shared && fs.existsSync(shared)) return Promise.resolve(JSON.parse(fs.readFileSync(shared, 'utf8')) as TestTls);
  made ??= newTestTls();
  return made;
}

/** Writes a new certificate and its CA file into `dir`, and the TestTls as `dir`/tls.json; returns that path. */
export async function writeTestTls(dir: string): Promise<string> {
  const tls = await newTestTls(dir);
  const file = path.join(dir, 'tls.json');
  fs.writeFileSync(file, JSON.stringify(tls));
  return file;
}

function newTestTls(dir?: string): Promise<TestTls> {
  return (async () => {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 7, ip: '127.0.0.1' },
            { type: 2, value: 'localhost' },
          ],
        },
      ],
    });
    const caPath = path.join(dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mf-tls-')), 'ca.pem');
    fs.writeFileSync(caPath, pems.cert);
    return { key: pems.private, cert: pems.cert, caPath };
  })();
}

/** One CA file holding several certificates (NODE_EXTRA_CA_CERTS takes one path). */
export function combinedCaFile(pems: string[]): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mf-ca-')), 'cas.pem');
  fs.writeFileSync(file, pems.join('\n'));
  return file;
}
