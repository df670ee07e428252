import type * as T from '../generated/types';

// Types only, no joi: the dashboard's browser code imports this file (and the generated types) and
// nothing else of the contracts. The schemas are in dashboard-replies.ts.

/** The success answer of each route of /dashboard/api that answers JSON, by `METHOD /path` (ids as :params). */
export interface DashboardReplies {
  'POST /signup': T.DashboardSession;
  'POST /signin': T.DashboardSession;
  'GET /me': T.DashboardSession;
  'GET /session': T.DashboardSessionProbe;
  'GET /keys': T.DashboardKeyList;
  'POST /keys': T.DashboardKeyCreated;
  'PUT /keys/:id/limits': T.DashboardKeyLimits;
  'DELETE /keys/:id': T.DashboardKeyRevoked;
  'GET /keys/:id/webhook': T.EndpointView;
  'PUT /keys/:id/webhook': T.SetEndpointReply;
  'DELETE /keys/:id/webhook': T.DashboardWebhookCleared;
  'GET /keys/:id/webhook/deliveries': T.ListDeliveriesReply;
  'GET /keys/:id/webhook/deliveries/:deliveryId': T.DeliveryDetail;
  'POST /keys/:id/webhook/deliveries/:deliveryId/resend': T.ResendReply;
  'POST /keys/:id/webhook/recover': T.RecoverReply;
  'POST /keys/:id/webhook/test': T.SendTestReply;
  'POST /keys/:id/webhook/secret/rotate': T.RotateSecretReply;
  'GET /balance': T.AccountReply;
  'GET /ledger': T.LedgerReply;
  'GET /usage': T.UsageReport;
  'GET /jobs': T.ListJobsReply;
  'GET /jobs/:id': T.Job;
  'GET /jobs/:id/attempts': T.JobAttemptsReply;
  'DELETE /jobs/:id': T.CancelJobReply;
  'GET /projects': T.ProjectListReply;
  'GET /projects/:id': T.DashboardProject;
  'POST /projects': T.ProjectReply;
  'POST /projects/:id/instruct': T.InstructReply;
  'POST /projects/:id/clips': T.ClipReply;
  'PATCH /projects/:id/clips/:clipId': T.ClipReply;
  'DELETE /projects/:id/clips/:clipId': T.RemoveClipReply;
  'POST /projects/:id/assets': T.AssetReply;
  'POST /projects/:id/export': T.ExportAccepted;
  'GET /projects/:id/exports': T.ExportList;
  'GET /projects/:id/exports/:exportId': T.ExportStatus;
  'GET /installation': T.DashboardInstallation;
  'GET /models': T.ModelList;
  'POST /estimate': T.EstimateReply;
  'POST /generate/:type': T.GenerationAccepted;
  'GET /admin/users': T.DashboardUserList;
  'POST /admin/users/:id/credits': T.DashboardGrantReply;
  'GET /admin/usage-report': T.OperatorReport;
}

export type DashboardRoute = keyof DashboardReplies;
