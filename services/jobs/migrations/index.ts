import type { Migration } from '@mf/db';
import { jobsOutbox } from './0001_jobs_outbox';

/** In order. Append only. */
export const migrations: Migration[] = [jobsOutbox];
