import {
  adminGrantBody,
  adminUsersQuery,
  createKeyBody,
  credentialsBody,
  dashboardDeliveriesQuery,
  dashboardJobsQuery,
  dashboardLedgerQuery,
  dashboardWebhookTestBody,
  playgroundBody,
  setWebhookBody,
  validateBody,
  validateQuery,
  type AdminGrantBody,
  type AdminUsersQuery,
  type CreateKeyBody,
  type CredentialsBody,
  type DashboardDeliveriesQuery,
  type DashboardJobsQuery,
  type DashboardLedgerQuery,
  type DashboardWebhookTestBody,
  type PlaygroundBody,
  type SetWebhookBody,
} from '@mf/contracts';
import { valid } from '../usecases/validated';

/**
 * The dashboard's bodies and queries, by their one definition (@mf/contracts api/dashboard.ts),
 * validated as the public API's are (unknown fields named, strict types); a failure is the 400.
 */

type Query = Record<string, unknown>;

export const credentialsOf = (body: unknown): CredentialsBody => valid(validateBody(credentialsBody, body));
export const createKeyOf = (body: unknown): CreateKeyBody => valid(validateBody(createKeyBody, body));
export const webhookUrlOf = (body: unknown): SetWebhookBody => valid(validateBody(setWebhookBody, body));
export const webhookTestOf = (body: unknown): DashboardWebhookTestBody =>
  valid(validateBody(dashboardWebhookTestBody, body, { absent: 'empty' }));
export const playgroundOf = (body: unknown): PlaygroundBody => valid(validateBody(playgroundBody, body));
export const adminGrantOf = (body: unknown): AdminGrantBody => valid(validateBody(adminGrantBody, body));

export const adminUsersQueryOf = (q: Query): AdminUsersQuery => valid(validateQuery(adminUsersQuery, q));
export const ledgerQueryOf = (q: Query): DashboardLedgerQuery => valid(validateQuery(dashboardLedgerQuery, q));
export const jobsQueryOf = (q: Query): DashboardJobsQuery => valid(validateQuery(dashboardJobsQuery, q));
export const deliveriesQueryOf = (q: Query): DashboardDeliveriesQuery =>
  valid(validateQuery(dashboardDeliveriesQuery, q));
