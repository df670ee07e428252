import type { Migration } from '@mf/db';
import { jobsOutbox } from './0001_jobs_outbox';
import { jobsByUser } from './0002_jobs_by_user';
import { submitIdempotency } from './0003_submit_idempotency';
import { jobOrigin } from './0004_job_origin';
import { jobAttempts } from './0005_job_attempts';
import { eventLog } from './0006_event_log';
import { keylessEditorJobs } from './0007_keyless_editor_jobs';
import { attemptCost } from './0008_attempt_cost';

/** In order. Append only. */
export const migrations: Migration[] = [
  jobsOutbox,
  jobsByUser,
  submitIdempotency,
  jobOrigin,
  jobAttempts,
  eventLog,
  keylessEditorJobs,
  attemptCost,
];
