import { POOL_DIR_VAR, stopPool } from './pool';

/** After the e2e project's last test: the pooled fleets stopped, their databases and vhosts dropped. */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env[POOL_DIR_VAR];
  if (dir) await stopPool(dir);
}
