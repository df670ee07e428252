import Joi from 'joi';
import { named, says, storableTimestamp } from './schema/rules';

/**
 * The operator's usage report (docs/usage.md, operator section): per user, model or provider, the
 * jobs, the credits net, what they cost upstream and the margin. Each service answers its own part:
 * billing the credits (billing.operator-usage, from its ledger), jobs the upstream cost
 * (jobs.upstream-costs, from its attempts); the gateway joins them.
 */

export const OPERATOR_REPORT_GROUPINGS = ['user', 'model', 'provider'] as const;
export type OperatorReportGrouping = (typeof OPERATOR_REPORT_GROUPINGS)[number];

const range = {
  from: Joi.string().isoDate().required().description('Start, inclusive.'),
  to: Joi.string().isoDate().required().description('End, exclusive.'),
};
const usd = Joi.number().description('US dollars.');
const groupKeys = {
  user_id: Joi.number().integer().min(1).description('When grouped by user.'),
  model: Joi.string().description('The catalog model (or editor charge kind), when grouped by model.'),
  provider: Joi.string().description('The provider name of the providers document, when grouped by provider.'),
};

/** Billing's part, over every user: the ledger's charges and refunds made in the range. */
export const operatorUsageRequest = named(
  Joi.object({ ...range, by: Joi.string().valid('user', 'model').required() }),
  'OperatorUsageRequest',
);

export const operatorUsageRow = named(
  Joi.object({
    user_id: groupKeys.user_id,
    model: groupKeys.model,
    jobs: Joi.number().integer().required().description('Charges made in the range.'),
    credits_charged: Joi.number().integer().required(),
    credits_refunded: Joi.number().integer().required(),
    credits_net: Joi.number().integer().required(),
  }),
  'OperatorUsageRow',
);

export const operatorUsageReply = named(
  Joi.object({ rows: Joi.array().items(operatorUsageRow).required() }),
  'OperatorUsageReply',
);

/**
 * The jobs service's part: the upstream cost of attempts that ended in the range; by provider also
 * the jobs completed in the range on that provider and their credits (charges kept).
 */
export const upstreamCostsRequest = named(
  Joi.object({
    ...range,
    by: Joi.string()
      .valid(...OPERATOR_REPORT_GROUPINGS)
      .required(),
  }),
  'UpstreamCostsRequest',
);

export const upstreamCostsRow = named(
  Joi.object({
    ...groupKeys,
    jobs: Joi.number().integer().required().description('Jobs completed in the range (by provider: on it).'),
    credits_kept: Joi.number().integer().required().description('Credits of those jobs (their charges kept).'),
    attempts: Joi.number().integer().required().description('Attempts that ended in the range.'),
    upstream_cost: usd.required().description('What those attempts cost upstream, US dollars.'),
    unpriced_attempts: Joi.number()
      .integer()
      .required()
      .description('Of those, the attempts on a non-local provider with no cost known.'),
  }),
  'UpstreamCostsRow',
);

export const upstreamCostsReply = named(
  Joi.object({ rows: Joi.array().items(upstreamCostsRow).required() }),
  'UpstreamCostsReply',
);

const reportCounts = {
  jobs: Joi.number().integer().required(),
  credits_net: Joi.number().integer().required(),
  revenue: usd.required().description('credits_net x the credit value.'),
  upstream_cost: usd.required(),
  margin: usd.required().description('revenue - upstream_cost.'),
  unpriced_attempts: Joi.number().integer().required(),
};

export const operatorReportRow = named(
  Joi.object({ ...groupKeys, email: Joi.string().description('The user, when grouped by user.'), ...reportCounts }),
  'OperatorReportRow',
);

/** What `admin usage:report` prints and the dashboard's admin page shows. */
export const operatorReport = named(
  Joi.object({
    ...range,
    by: Joi.string()
      .valid(...OPERATOR_REPORT_GROUPINGS)
      .required(),
    credit_value: usd.required().description('What one credit is worth (CREDIT_VALUE_USD or --credit-value).'),
    rows: Joi.array().items(operatorReportRow).required(),
    totals: Joi.object(reportCounts).required(),
  }),
  'OperatorReport',
);

/** The query of the report (the dashboard's admin page; the CLI's flags are the same names). */
export const operatorReportQuery = named(
  Joi.object({
    from: says(storableTimestamp(), 'from must be an ISO 8601 date (YYYY-MM-DD, midnight UTC) or timestamp'),
    to: says(storableTimestamp(), 'to must be an ISO 8601 date (YYYY-MM-DD, midnight UTC) or timestamp'),
    by: says(
      Joi.string().valid(...OPERATOR_REPORT_GROUPINGS),
      `by must be one of ${OPERATOR_REPORT_GROUPINGS.join(', ')}`,
    ),
    format: says(Joi.string().valid('json', 'csv'), 'format must be json or csv'),
  }),
  'OperatorReportQuery',
);
