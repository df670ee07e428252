import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDist } from './dist';
import { POOL_DIR_VAR } from './pool';

/**
 * Before the e2e project's first test: the production build the pool (and every `form: 'compiled'`
 * fleet) runs, rebuilt only when a source is newer; and the directory where each worker records its
 * pooled fleet (the workers inherit the variable).
 */
export default async function globalSetup(): Promise<void> {
  await ensureDist();
  process.env[POOL_DIR_VAR] = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-e2e-pool-'));
}
