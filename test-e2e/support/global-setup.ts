import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDist } from './dist';
import { POOL_DIR_VAR } from './pool';
import { TLS_FILE_VAR, writeTestTls } from './tls';

/**
 * Before the e2e project's first test: the production build the fleets run, rebuilt only when a
 * source is newer; the directory where each worker records its pooled fleet; and the run's test
 * certificate, which the pooled fleets trust (the workers inherit both variables).
 */
export default async function globalSetup(): Promise<void> {
  await ensureDist();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-e2e-pool-'));
  process.env[POOL_DIR_VAR] = dir;
  process.env[TLS_FILE_VAR] = await writeTestTls(dir);
}
