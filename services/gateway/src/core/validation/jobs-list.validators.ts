import { listJobsQuery, validateQuery, type ListJobsQuery, type Validated } from '@mf/contracts';

/** The query of GET /api/v1/jobs, by its one definition (@mf/contracts api/jobs-list.ts). */
export function validateListJobsQuery(query: Record<string, unknown>): Validated<ListJobsQuery> {
  return validateQuery(listJobsQuery, query);
}
