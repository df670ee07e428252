import Joi from 'joi';
import type * as T from '../generated/types';
import { DELIVERY_STATUSES, TEST_EVENTS } from '../webhooks';
import { AMOUNT_MAX } from '../billing';
import { JOB_ID } from '../jobs';
import { named, says } from '../schema/rules';

/**
 * The requests of the dashboard's JSON API under /dashboard/api (docs/dashboard-api.md): bodies and
 * queries, defined once here as the public API's are. Path ids stay with the routes: a malformed id
 * names nothing, so it is a 404 there, not a 400.
 */

/** The dashboard's paged lists: the ledger and the delivery log show up to 500 rows a page. */
export const DASHBOARD_LEDGER_PAGE_MAX = 500;
export const DASHBOARD_DELIVERIES_PAGE_MAX = 500;
export const DASHBOARD_JOBS_PAGE_MAX = 100;
export const KEY_NAME_MAX = 100;
export const WEBHOOK_URL_MAX = 2048;

const pageLimit = (max: number) =>
  says(Joi.number().integer().min(1).max(max), `limit must be an integer from 1 to ${max}`).description(
    `Rows per page, 1-${max}.`,
  );

const CREDENTIALS_REQUIRED = 'email and password are required';

/** POST /dashboard/api/signup and /signin. */
export const credentialsBody: Joi.ObjectSchema<T.CredentialsBody> = named(
  Joi.object({
    email: says(Joi.string().required(), CREDENTIALS_REQUIRED),
    password: says(Joi.string().required(), CREDENTIALS_REQUIRED),
  }),
  'CredentialsBody',
);

/** POST /dashboard/api/keys: `scopes` as parseScopes reads them (`all`, unknown ones named there). */
export const createKeyBody: Joi.ObjectSchema<T.CreateKeyBody> = named(
  Joi.object({
    name: says(Joi.string().allow('').max(KEY_NAME_MAX).default(''), 'name must be a string', {
      'string.max': `name must be at most ${KEY_NAME_MAX} characters`,
    }),
    scopes: says(Joi.array().items(Joi.string()).required(), 'scopes must be an array of strings'),
  }),
  'CreateKeyBody',
);

/** PUT /dashboard/api/keys/:id/webhook (the dispatcher checks the URL itself). */
export const setWebhookBody: Joi.ObjectSchema<T.SetWebhookBody> = named(
  Joi.object({
    url: says(Joi.string().allow('').max(WEBHOOK_URL_MAX).required(), 'url must be a string', {
      'string.max': `url must be at most ${WEBHOOK_URL_MAX} characters`,
    }),
  }),
  'SetWebhookBody',
);

/** POST /dashboard/api/keys/:id/webhook/test: the body is optional, the ping when not said. */
export const dashboardWebhookTestBody: Joi.ObjectSchema<T.DashboardWebhookTestBody> = named(
  Joi.object({
    event: says(
      Joi.string()
        .valid(...TEST_EVENTS)
        .default('webhook.test'),
      `event must be one of ${TEST_EVENTS.join(', ')}`,
    ),
  }),
  'DashboardWebhookTestBody',
);

/** POST /dashboard/api/admin/users/:id/credits (billing's largest grant at most). */
export const adminGrantBody: Joi.ObjectSchema<T.AdminGrantBody> = named(
  Joi.object({
    amount: says(Joi.number().integer().min(1).max(AMOUNT_MAX).required(), 'amount must be a positive integer', {
      'number.max': `amount must be at most ${AMOUNT_MAX}`,
    }),
    idempotency_key: says(
      Joi.string().pattern(/^[A-Za-z0-9-]{8,64}$/),
      'idempotency_key must be 8-64 letters, digits or dashes',
    ).description('The same key grants once (a retried or double-sent form).'),
  }),
  'AdminGrantBody',
);

/**
 * POST /dashboard/api/generate/:type and /estimate: a run of the playground. `input` is the public
 * submit (or estimate) body, validated afterwards with that endpoint's own rules and messages.
 */
export const playgroundBody: Joi.ObjectSchema<T.PlaygroundBody> = named(
  Joi.object({
    api_key_id: says(
      Joi.number().integer().min(1).allow(null).default(null),
      'api_key_id must be the id of one of your keys, or null for the session',
    ).description("null: the session (no key limits); else one of the user's active keys."),
    input: says(
      Joi.object().unknown(true).required(),
      'input must be an object: the body of the public submit endpoint',
    ),
  }),
  'PlaygroundBody',
);

/** GET /dashboard/api/admin/users?email=: a part of the email to look for. */
export const adminUsersQuery: Joi.ObjectSchema<T.AdminUsersQuery> = named(
  Joi.object({ email: Joi.string().allow('').trim().max(320).truncate() }),
  'AdminUsersQuery',
);

/** GET /dashboard/api/ledger. */
export const dashboardLedgerQuery: Joi.ObjectSchema<T.DashboardLedgerQuery> = named(
  Joi.object({
    limit: pageLimit(DASHBOARD_LEDGER_PAGE_MAX),
    before_id: says(Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER), 'before_id must be a positive integer'),
  }),
  'DashboardLedgerQuery',
);

/** GET /dashboard/api/jobs. */
export const dashboardJobsQuery: Joi.ObjectSchema<T.DashboardJobsQuery> = named(
  Joi.object({
    limit: pageLimit(DASHBOARD_JOBS_PAGE_MAX),
    before: says(Joi.string().pattern(JOB_ID), 'before must be a job id'),
  }),
  'DashboardJobsQuery',
);

/** GET /dashboard/api/keys/:id/webhook/deliveries. */
export const dashboardDeliveriesQuery: Joi.ObjectSchema<T.DashboardDeliveriesQuery> = named(
  Joi.object({
    status: says(Joi.string().valid(...DELIVERY_STATUSES), `status must be one of ${DELIVERY_STATUSES.join(', ')}`),
    limit: pageLimit(DASHBOARD_DELIVERIES_PAGE_MAX),
    starting_after: says(
      Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER),
      'starting_after must be a delivery id (a positive integer)',
    ),
  }),
  'DashboardDeliveriesQuery',
);
