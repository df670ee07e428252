import Joi from 'joi';
import { JOB_ID, JOB_STATUSES, JOB_TYPES } from '../jobs';
import { named, says, storableTimestamp } from '../schema/rules';
import { MODEL_IDS } from './model-ids';

/** GET /api/v1/jobs: a page of 1-100 jobs, 20 when not said (Stripe's lists default to 10, ours show media). */
export const JOBS_PAGE_DEFAULT = 20;
export const JOBS_PAGE_MAX = 100;

const oneOf = (field: string, values: readonly string[]) =>
  says(Joi.string().valid(...values), `${field} must be one of ${values.join(', ')}`);

/**
 * The query of GET /api/v1/jobs. Unlike other reads, an unknown parameter is a 400 naming it (as
 * Stripe does): a misspelt filter (`stauts`) must not silently list everything.
 */
export const listJobsQuery = named(
  Joi.object({
    limit: says(
      Joi.number().integer().min(1).max(JOBS_PAGE_MAX).default(JOBS_PAGE_DEFAULT),
      `limit must be an integer between 1 and ${JOBS_PAGE_MAX}`,
    ).description(`Jobs per page, 1-${JOBS_PAGE_MAX}.`),
    starting_after: says(Joi.string().pattern(JOB_ID), 'starting_after must be a job id (job_...)').description(
      'A `job_id`: the jobs older than it. One that is not among yours ends the list.',
    ),
    status: oneOf('status', JOB_STATUSES),
    model: oneOf('model', MODEL_IDS).description('A model id.'),
    type: oneOf('type', JOB_TYPES),
    'created[gte]': says(storableTimestamp(), 'created[gte] must be an ISO 8601 timestamp').description(
      'Only those created at or after this instant (ISO 8601).',
    ),
    'created[lte]': says(storableTimestamp(), 'created[lte] must be an ISO 8601 timestamp').description(
      'Only those created at or before this instant (ISO 8601).',
    ),
  }),
  'ListJobsQuery',
);
