import Joi from 'joi';
import type * as T from '../generated/types';
import { named, says } from '../schema/rules';

/** The most a key's monthly spend limit and concurrent-jobs limit may be set to. */
export const SPEND_LIMIT_MAX = 1_000_000_000;
export const MAX_CONCURRENT_JOBS_MAX = 1000;

/**
 * PUT /dashboard/api/keys/:id/limits (and the admin CLI's key:limits): both limits of a key. A field
 * left out or null means no limit of that kind.
 */
export const keyLimitsBody: Joi.ObjectSchema<T.KeyLimitsBody> = named(
  Joi.object({
    spend_limit: says(
      Joi.number().integer().min(1).max(SPEND_LIMIT_MAX).allow(null),
      `spend_limit must be an integer between 1 and ${SPEND_LIMIT_MAX}, or null`,
    ).description('Most credits the key may spend per calendar month (UTC); null or absent: no limit.'),
    max_concurrent_jobs: says(
      Joi.number().integer().min(1).max(MAX_CONCURRENT_JOBS_MAX).allow(null),
      `max_concurrent_jobs must be an integer between 1 and ${MAX_CONCURRENT_JOBS_MAX}, or null`,
    ).description('Most jobs of the key running at once; null or absent: no limit.'),
  }),
  'KeyLimitsBody',
);
