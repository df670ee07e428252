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
export { verifyWebhook, computeSignature, signWebhook, parseSignatureHeader } from './webhooks';
export type { VerifyWebhookOptions, WebhookHeaders } from './webhooks';
export type * from './types';
export type { EventsApi, JobsStreams } from './streams';
export type { StreamOptions } from './event-stream';
export { parseEventBlock } from './event-stream';
