import Joi from 'joi';
import { named, says, storableTimestamp } from '../schema/rules';

/**
 * Usage and the ledger over the API (docs/usage.md): GET /api/v1/usage and GET /api/v1/ledger.
 * Billing answers both from its ledger; the gateway validates the query and maps it.
 */

export const USAGE_GROUPINGS = ['day', 'model', 'key'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** The longest range one usage request covers. */
export const USAGE_RANGE_MAX_DAYS = 366;

/** The CSV answer's formats: `format=csv` or `Accept: text/csv`. */
export const EXPORT_FORMATS = ['json', 'csv'] as const;

/** GET /api/v1/ledger: 1-100 entries a page, 20 when not said (as GET /api/v1/jobs). */
export const LEDGER_API_PAGE_DEFAULT = 20;
export const LEDGER_API_PAGE_MAX = 100;

const instant = (field: string, edge: string) =>
  says(storableTimestamp(), `${field} must be an ISO 8601 date (YYYY-MM-DD, midnight UTC) or timestamp`).description(
    `${edge} (ISO 8601: a date is midnight UTC).`,
  );

const format = says(Joi.string().valid(...EXPORT_FORMATS), 'format must be json or csv').description(
  '`csv` answers CSV (RFC 4180, UTF-8, a header row), as `Accept: text/csv` does.',
);

/**
 * The query of GET /api/v1/usage. `group_by` may be repeated or comma-separated (the gateway joins
 * repeats with commas before validating). An unknown parameter is a 400 naming it.
 */
export const usageQuery = named(
  Joi.object({
    from: instant('from', 'Start of the range, inclusive; default the first day of this month (UTC)'),
    to: instant(
      'to',
      `End of the range, exclusive; default the first day of next month (UTC). At most ${USAGE_RANGE_MAX_DAYS} days after from`,
    ),
    group_by: says(
      Joi.string().pattern(new RegExp(`^(${USAGE_GROUPINGS.join('|')})(,(${USAGE_GROUPINGS.join('|')}))*$`)),
      `group_by must be one or more of ${USAGE_GROUPINGS.join(', ')} (comma-separated or repeated)`,
    ).description('`day` (UTC), `model`, `key`; several comma-separated or repeated. Default `day`.'),
    format,
  }),
  'UsageQuery',
);

/** What billing is asked: the range resolved and checked, the groupings in their canonical order. */
export const usageRequest = named(
  Joi.object({
    user_id: Joi.number().integer().min(1).required(),
    from: Joi.string().isoDate().required(),
    to: Joi.string().isoDate().required(),
    group_by: Joi.array()
      .items(Joi.string().valid(...USAGE_GROUPINGS))
      .min(1)
      .unique()
      .required(),
  }),
  'UsageRequest',
);

const counts = {
  jobs: Joi.number()
    .integer()
    .required()
    .description('Charges made in the range: jobs, editor turns and editor audio generations.'),
  credits_charged: Joi.number().integer().required().description('Credits charged in the range.'),
  credits_refunded: Joi.number()
    .integer()
    .required()
    .description('Credits refunded in the range, on the day the refund was made (whenever the charge was).'),
  credits_net: Joi.number()
    .integer()
    .required()
    .description(
      'credits_charged - credits_refunded: what the range took from the balance (grants apart). Negative when refunds of earlier charges outweigh.',
    ),
};

export const usageRow = named(
  Joi.object({
    day: Joi.string().description('YYYY-MM-DD (UTC), when grouped by day.'),
    model: Joi.string().description(
      'The catalog model id, or the kind of editor charge (editor-turn, editor-voice, editor-music, editor-sfx), when grouped by model.',
    ),
    api_key_id: Joi.number()
      .integer()
      .allow(null)
      .description('The API key, when grouped by key; null for charges made without one (dashboard, editor).'),
    ...counts,
  }),
  'UsageRow',
);

export const usageReport = named(
  Joi.object({
    from: Joi.string().isoDate().required().description('The range start, inclusive.'),
    to: Joi.string().isoDate().required().description('The range end, exclusive.'),
    group_by: Joi.array()
      .items(Joi.string().valid(...USAGE_GROUPINGS))
      .required(),
    rows: Joi.array()
      .items(usageRow)
      .required()
      .description('One per group with any charge or refund, ordered by day, then model, then key.'),
    totals: Joi.object(counts).required().description('The sums of the rows.'),
  }),
  'UsageReport',
);

/** The query of GET /api/v1/ledger. An unknown parameter is a 400 naming it. */
export const ledgerQuery = named(
  Joi.object({
    limit: says(
      Joi.number().integer().min(1).max(LEDGER_API_PAGE_MAX).default(LEDGER_API_PAGE_DEFAULT),
      `limit must be an integer between 1 and ${LEDGER_API_PAGE_MAX}`,
    ).description(`Entries per page, 1-${LEDGER_API_PAGE_MAX}. In CSV: all the entries when not given.`),
    starting_after: says(
      Joi.number().integer().min(1),
      'starting_after must be a ledger entry id (a positive integer)',
    ).description('An entry `id`: the entries older than it.'),
    'created[gte]': says(storableTimestamp(), 'created[gte] must be an ISO 8601 timestamp').description(
      'Only those made at or after this instant (ISO 8601).',
    ),
    'created[lte]': says(storableTimestamp(), 'created[lte] must be an ISO 8601 timestamp').description(
      'Only those made at or before this instant (ISO 8601).',
    ),
    format,
  }),
  'LedgerQuery',
);
