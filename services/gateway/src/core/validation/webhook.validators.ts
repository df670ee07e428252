import {
  putWebhookBody,
  rotateWebhookSecretBody,
  type PutWebhookBody,
  type RotateWebhookSecretBody,
  listWebhookDeliveriesQuery,
  recoverBody,
  validateBody,
  validateQuery,
  webhookTestBody,
  type ListWebhookDeliveriesQuery,
  type RecoverBody,
  type Validated,
  type WebhookTestBody,
} from '@mf/contracts';

/** The webhook delivery tools' inputs, by their one definition (@mf/contracts api/webhook-deliveries.ts). */

export function validateListDeliveriesQuery(query: Record<string, unknown>): Validated<ListWebhookDeliveriesQuery> {
  return validateQuery(listWebhookDeliveriesQuery, query);
}

export function validateRecoverBody(body: unknown): Validated<RecoverBody> {
  return validateBody(recoverBody, body);
}

export function validateWebhookTestBody(body: unknown): Validated<WebhookTestBody> {
  return validateBody(webhookTestBody, body);
}

export function validatePutWebhookBody(body: unknown): Validated<PutWebhookBody> {
  return validateBody(putWebhookBody, body);
}

/** The body is optional: none is `{}` (the default overlap). */
export function validateRotateWebhookSecretBody(body: unknown): Validated<RotateWebhookSecretBody> {
  return validateBody(rotateWebhookSecretBody, body ?? {});
}
