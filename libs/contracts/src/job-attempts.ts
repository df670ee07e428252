import Joi from 'joi';
import { named } from './schema/rules';

/** A job's attempts on its provider routes (the jobs.attempts RPC; the dashboard's job page lists them). */

const timestamp = Joi.string().isoDate().description('ISO 8601, UTC.');

export const ATTEMPT_STATES = [
  'submitting',
  'running',
  'succeeded',
  'failed',
  'timed_out',
  'cancelled',
  'abandoned',
  'skipped',
] as const;

/** How an attempt's upstream cost was known (docs/usage.md). */
export const UPSTREAM_COST_SOURCES = ['reported', 'metered', 'price'] as const;

/** One attempt of a job on one of its routes (the dashboard's job page lists them). */
export const jobAttemptView = named(
  Joi.object({
    n: Joi.number().integer().min(1).required(),
    provider: Joi.string().required(),
    upstream_model: Joi.string().allow(null).required(),
    upstream_id: Joi.string().allow(null).required(),
    state: Joi.string()
      .valid(...ATTEMPT_STATES)
      .required(),
    error: Joi.string().allow(null).required(),
    progress: Joi.number()
      .min(0)
      .max(1)
      .allow(null)
      .required()
      .description('0..1 while running, when the upstream tells.'),
    started_at: timestamp.required(),
    ended_at: timestamp.allow(null).required(),
    upstream_cost: Joi.number()
      .min(0)
      .allow(null)
      .required()
      .description('What the attempt cost upstream, US dollars; null when unknown or none (the local provider).'),
    upstream_cost_source: Joi.string()
      .valid(...UPSTREAM_COST_SOURCES)
      .allow(null)
      .required()
      .description(
        'reported: the upstream said (OpenRouter usage.cost); metered: its usage times the route price (Replicate compute seconds, fal billed units); price: the route price for what was made.',
      ),
  }),
  'JobAttemptView',
);

export const jobAttemptsReply = named(
  Joi.object({ job_id: Joi.string().required(), attempts: Joi.array().items(jobAttemptView).required() }),
  'JobAttemptsReply',
);
