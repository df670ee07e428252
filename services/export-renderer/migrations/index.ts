import type { Migration } from '@mf/db';
import { exportRuns } from './0001_export_runs';

/** In order. Append only. */
export const migrations: Migration[] = [exportRuns];
