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

/** A self-signed certificate for 127.0.0.1 and localhost, made once per test process. */
export function testTls(): Promise<TestTls> {
  made ??= (async () => {
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
    const caPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mf-tls-')), 'ca.pem');
    fs.writeFileSync(caPath, pems.cert);
    return { key: pems.private, cert: pems.cert, caPath };
  })();
  return made;
}

/** One CA file holding several certificates (NODE_EXTRA_CA_CERTS takes one path). */
export function combinedCaFile(pems: string[]): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mf-ca-')), 'cas.pem');
  fs.writeFileSync(file, pems.join('\n'));
  return file;
}
