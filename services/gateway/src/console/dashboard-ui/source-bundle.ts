import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { dashboardBundleOptions } from './bundle-options';

/**
 * Run from source (node + tsx), the gateway bundles the dashboard itself when it starts, as the
 * production build does ahead of time: into a directory of its own (fleets started side by side
 * never share one), removed when the process exits. The production build never loads this module.
 */
export function bundleDashboardFromSource(dashboardDir: string): string {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-dashboard-'));
  process.once('exit', () => fs.rmSync(outdir, { recursive: true, force: true }));
  const result = buildSync(dashboardBundleOptions(dashboardDir, outdir));
  if (result.warnings.length) throw new Error(`dashboard bundle: ${result.warnings.map((w) => w.text).join('; ')}`);
  return outdir;
}
