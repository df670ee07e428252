import type { Migration } from '@mf/db';
import { jobsOutbox } from './0001_jobs_outbox';
import { jobsByUser } from './0002_jobs_by_user';

/** In order. Append only. */
export const migrations: Migration[] = [jobsOutbox, jobsByUser];
