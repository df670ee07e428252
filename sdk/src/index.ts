export { MediaforgeClient, SDK_VERSION } from './client';
export type { MediaforgeClientOptions, RequestOptions, WaitForJobOptions } from './client';
export {
  ApiError,
  AuthenticationError,
  PermissionError,
  InsufficientCreditsError,
  NotFoundError,
  ConflictError,
  ValidationError,
  RateLimitError,
  ServerError,
  ExportError,
  ConnectionError,
  JobFailedError,
  WaitTimeoutError,
  WebhookVerificationError,
} from './errors';
export { estimateOfImage, estimateOfVideo } from './estimate';
export { verifyWebhook, computeSignature, signWebhook, parseSignatureHeader } from './webhooks';
export type { VerifyWebhookOptions, WebhookHeaders } from './webhooks';
export type * from './types';
export { WebhookDeliveries, WEBHOOK_TEST_TYPES } from './webhook-deliveries';
export type {
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveriesPage,
  ListWebhookDeliveriesParams,
  ResendWebhookResponse,
  RecoverWebhooksResponse,
  WebhookTestResponse,
  WebhookTestType,
  WebhookEndpoint,
  WebhookEndpointSaved,
  WebhookSecretRotated,
  SetWebhookParams,
} from './webhook-deliveries';
export { UsageApi, LedgerApi } from './usage';
export type { UsageReport, UsageRow, UsageParams, UsageGrouping, LedgerEntry, LedgerPage, LedgerParams } from './usage';
export type { EventsApi, JobsStreams } from './streams';
export type { StreamOptions } from './event-stream';
export { parseEventBlock } from './event-stream';
