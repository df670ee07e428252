import type { Migration } from '@mf/db';
import { exportRuns } from './0001_export_runs';
import { renderResults } from './0002_render_results';

/** In order. Append only. */
export const migrations: Migration[] = [exportRuns, renderResults];
