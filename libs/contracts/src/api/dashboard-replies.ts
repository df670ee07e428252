import Joi from 'joi';
import type * as T from '../generated/types';
import type { DashboardRoute } from './dashboard-routes';
import { accountReply, keyLimitsView, ledgerReply } from '../billing';
import {
  assetReply,
  clipReply,
  instructReply,
  projectListReply,
  projectReply,
  projectStateReply,
  removeClipReply,
  threadsReply,
} from '../editor';
import { exportAccepted, exportList, exportStatus } from '../export-status';
import { jobAttemptsReply } from '../job-attempts';
import { operatorReport } from '../operator-report';
import { usageReport } from './usage';
import { cancelJobReply, jobView, listJobsReply } from '../jobs';
import { keysOf, named } from '../schema/rules';
import {
  deliveryDetail,
  endpointView,
  listDeliveriesReply,
  recoverReply,
  resendReply,
  rotateSecretReply,
  sendTestReply,
  setEndpointReply,
} from '../webhooks';
import { estimateReply } from './estimate';
import { generationAccepted, modelList, SCOPES } from './responses';

/**
 * The answers of the dashboard's JSON API under /dashboard/api (docs/dashboard-api.md), defined once
 * here: the gateway's handlers answer these types, the dashboard's TypeScript reads them, and
 * DASHBOARD_REPLIES says which route answers which (the end-to-end client checks every answer).
 */

const timestamp = Joi.string().isoDate().description('ISO 8601, UTC.');
const id = Joi.number().integer().min(1);

export const USER_ROLES = ['user', 'admin'] as const;

export const dashboardUser = named(
  Joi.object({
    id: id.required(),
    email: Joi.string().required(),
    role: Joi.string()
      .valid(...USER_ROLES)
      .required(),
  }),
  'DashboardUser',
);

/** Sign-up, sign-in and GET /me: who is signed in, and the token every write carries. */
export const dashboardSession: Joi.ObjectSchema<T.DashboardSession> = named(
  Joi.object({
    user: dashboardUser.required(),
    csrf_token: Joi.string().required().description('Sent back as X-CSRF-Token on every write; kept in memory only.'),
  }),
  'DashboardSession',
);

/** GET /session: the session, or null when signed out (200 either way). */
export const dashboardSessionProbe: Joi.ObjectSchema<T.DashboardSessionProbe> = named(
  Joi.object({ session: dashboardSession.allow(null).required() }),
  'DashboardSessionProbe',
);

/** A key's limits and this month's counters (billing's view without the key's id). */
export const dashboardKeyLimits: Joi.ObjectSchema<T.DashboardKeyLimits> = named(
  Joi.object(Object.fromEntries(keysOf(keyLimitsView).filter(([k]) => k !== 'api_key_id'))),
  'DashboardKeyLimits',
);

/** A key as the dashboard lists it: never its hash, never the full key. */
export const dashboardKey: Joi.ObjectSchema<T.DashboardKey> = named(
  Joi.object({
    id: id.required(),
    name: Joi.string().allow('').required(),
    prefix: Joi.string().required(),
    scopes: Joi.array().items(Joi.string()).required(),
    created_at: timestamp.required(),
    last_used_at: timestamp.allow(null).required(),
    revoked_at: timestamp.allow(null).required(),
    limits: dashboardKeyLimits
      .allow(null)
      .required()
      .description('null when billing did not answer: the list still works, so a key can be revoked.'),
  }),
  'DashboardKey',
);

export const dashboardKeyList: Joi.ObjectSchema<T.DashboardKeyList> = named(
  Joi.object({ keys: Joi.array().items(dashboardKey).required().description('Newest first.') }),
  'DashboardKeyList',
);

export const dashboardKeyCreated: Joi.ObjectSchema<T.DashboardKeyCreated> = named(
  Joi.object({
    key: dashboardKey.required(),
    secret_key: Joi.string().required().description('The full key, shown this once.'),
  }),
  'DashboardKeyCreated',
);

export const dashboardKeyRevoked: Joi.ObjectSchema<T.DashboardKeyRevoked> = named(
  Joi.object({ id: id.required(), revoked_at: timestamp.required() }),
  'DashboardKeyRevoked',
);

export const dashboardWebhookCleared: Joi.ObjectSchema<T.DashboardWebhookCleared> = named(
  Joi.object({ cleared: Joi.boolean().required().description('false when there was none.') }),
  'DashboardWebhookCleared',
);

/** A project's state with every video's chat thread. */
export const dashboardProject = named(
  projectStateReply.keys({ threads: threadsReply.extract('threads') }),
  'DashboardProject',
);

export const dashboardScope = named(
  Joi.object({
    name: Joi.string()
      .valid(...SCOPES)
      .required(),
    description: Joi.string().required().description('What the scope lets a key do, in one line.'),
    always: Joi.boolean().required().description('On every key (models:read).'),
    default: Joi.boolean().required().description('Ticked to start with in the key form.'),
  }),
  'DashboardScope',
);

/** What the getting-started panel says, where the API reference is, and the key form's scopes. */
export const dashboardInstallation: Joi.ObjectSchema<T.DashboardInstallation> = named(
  Joi.object({
    signup_credits: Joi.number().integer().min(0).required().description('Credits a new account is granted once.'),
    reference_url: Joi.string().required(),
    openapi_url: Joi.string().required(),
    scopes: Joi.array().items(dashboardScope).required(),
  }),
  'DashboardInstallation',
);

/** A user as the admin search lists them. */
export const dashboardUserRow = named(dashboardUser.keys({ created_at: timestamp.required() }), 'DashboardUserRow');

export const dashboardUserList: Joi.ObjectSchema<T.DashboardUserList> = named(
  Joi.object({
    users: Joi.array().items(dashboardUserRow).required().description('Newest first, at most 100.'),
  }),
  'DashboardUserList',
);

export const dashboardGrantReply: Joi.ObjectSchema<T.DashboardGrantReply> = named(
  Joi.object({ credits_remaining: Joi.number().integer().required() }),
  'DashboardGrantReply',
);

/**
 * The schema of each route's success answer: what the end-to-end client checks every answer
 * against. Sign-out answers 204 without a body.
 */
export const DASHBOARD_REPLIES: { readonly [R in DashboardRoute]: Joi.ObjectSchema } = {
  'POST /signup': dashboardSession,
  'POST /signin': dashboardSession,
  'GET /me': dashboardSession,
  'GET /session': dashboardSessionProbe,
  'GET /keys': dashboardKeyList,
  'POST /keys': dashboardKeyCreated,
  'PUT /keys/:id/limits': dashboardKeyLimits,
  'DELETE /keys/:id': dashboardKeyRevoked,
  'GET /keys/:id/webhook': endpointView,
  'PUT /keys/:id/webhook': setEndpointReply,
  'DELETE /keys/:id/webhook': dashboardWebhookCleared,
  'GET /keys/:id/webhook/deliveries': listDeliveriesReply,
  'GET /keys/:id/webhook/deliveries/:deliveryId': deliveryDetail,
  'POST /keys/:id/webhook/deliveries/:deliveryId/resend': resendReply,
  'POST /keys/:id/webhook/recover': recoverReply,
  'POST /keys/:id/webhook/test': sendTestReply,
  'POST /keys/:id/webhook/secret/rotate': rotateSecretReply,
  'GET /balance': accountReply,
  'GET /ledger': ledgerReply,
  'GET /usage': usageReport,
  'GET /jobs': listJobsReply,
  'GET /jobs/:id': jobView,
  'GET /jobs/:id/attempts': jobAttemptsReply,
  'DELETE /jobs/:id': cancelJobReply,
  'GET /projects': projectListReply,
  'GET /projects/:id': dashboardProject,
  'POST /projects': projectReply,
  'POST /projects/:id/instruct': instructReply,
  'POST /projects/:id/clips': clipReply,
  'PATCH /projects/:id/clips/:clipId': clipReply,
  'DELETE /projects/:id/clips/:clipId': removeClipReply,
  'POST /projects/:id/assets': assetReply,
  'POST /projects/:id/export': exportAccepted,
  'GET /projects/:id/exports': exportList,
  'GET /projects/:id/exports/:exportId': exportStatus,
  'GET /installation': dashboardInstallation,
  'GET /models': modelList,
  'POST /estimate': estimateReply,
  'POST /generate/:type': generationAccepted,
  'GET /admin/users': dashboardUserList,
  'POST /admin/users/:id/credits': dashboardGrantReply,
  'GET /admin/usage-report': operatorReport,
};

/** The route a request matches ('GET /keys/12' -> 'GET /keys/:id'), or undefined for none. */
export function dashboardRouteOf(method: string, path: string): DashboardRoute | undefined {
  const parts = path.split('?')[0].split('/').filter(Boolean);
  return (Object.keys(DASHBOARD_REPLIES) as DashboardRoute[]).find((route) => {
    const [m, p] = route.split(' ');
    const pattern = p.split('/').filter(Boolean);
    return (
      m === method.toUpperCase() &&
      pattern.length === parts.length &&
      pattern.every((seg, i) => seg.startsWith(':') || seg === parts[i])
    );
  });
}
