import { randomBytes } from 'node:crypto';
import type { Bus } from '@mf/bus';
import { videoCost, type FalEndpoints } from '@mf/catalog';
import {
  VIDEO_MODEL,
  webhookOutboundRpc,
  webhooksRpc,
  type EndpointView,
  type JobEventPayload,
  type ListDeliveriesReply,
  type RotateSecretReply,
  type SendTestReply,
  type SetEndpointReply,
  type WebhookTestType,
} from '@mf/contracts';
import type { Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { findKeyById } from '../repositories/api-keys.repository';

/** The key's owner, which the dispatcher checks every endpoint operation against. */
export async function keyOwner(db: Knex, apiKeyId: number, ownerId?: number): Promise<number> {
  const key = await findKeyById(db, apiKeyId);
  if (!key || (ownerId !== undefined && key.user_id !== ownerId))
    throw AppError.notFound(`no API key with id ${apiKeyId}`);
  return key.user_id;
}

/** Sets the key's webhook URL; the reply has the signing secret only when one was just generated. */
export async function setWebhook(
  db: Knex,
  bus: Bus,
  apiKeyId: number,
  url: string,
  ownerId?: number,
): Promise<Pick<SetEndpointReply, 'url' | 'secret'>> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  const reply = await bus.rpc(webhookOutboundRpc, 'setEndpoint', { api_key_id: apiKeyId, user_id: userId, url });
  // The dashboard's and the admin CLI's answer as it has always been: the URL, and the secret once.
  return { url: reply.url, ...(reply.secret !== undefined ? { secret: reply.secret } : {}) };
}

export async function clearWebhook(
  db: Knex,
  bus: Bus,
  apiKeyId: number,
  ownerId?: number,
): Promise<{ cleared: boolean }> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(webhooksRpc, 'clearEndpoint', { api_key_id: apiKeyId, user_id: userId });
}

/** A new signing secret for the key's webhook; the previous one keeps signing for `overlapHours`. */
export async function rotateWebhookSecret(
  db: Knex,
  bus: Bus,
  apiKeyId: number,
  overlapHours: number,
  ownerId?: number,
): Promise<RotateSecretReply> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(webhooksRpc, 'rotateSecret', { api_key_id: apiKeyId, user_id: userId, overlap_hours: overlapHours });
}

export async function listWebhookDeliveries(
  db: Knex,
  bus: Bus,
  apiKeyId: number,
  limit?: number,
  ownerId?: number,
  filter: { status?: 'failed' | 'succeeded'; starting_after?: number } = {},
): Promise<ListDeliveriesReply> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  const { deliveries } = await bus.rpc(webhooksRpc, 'listDeliveries', {
    api_key_id: apiKeyId,
    user_id: userId,
    ...(limit ? { limit } : {}),
    ...filter,
  });
  // The dashboard's page as it has always been (GET /api/v1/webhook/deliveries has has_more).
  return { deliveries };
}

/** The key's webhook URL and dates (nulls when none); never the secret. */
export async function getWebhook(
  db: Knex,
  bus: Bus,
  apiKeyId: number,
  ownerId?: number,
): Promise<Omit<EndpointView, 'events' | 'signature_scheme'>> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  // The dashboard's and the admin CLI's view as it has always been (GET /api/v1/webhook shows the rest).
  const {
    events: _events,
    signature_scheme: _scheme,
    ...view
  } = await bus.rpc(webhooksRpc, 'getEndpoint', {
    api_key_id: apiKeyId,
    user_id: userId,
  });
  return view;
}

/** Which test event to send: the ping, or a sample of a real job event (built by sampleJobEvent). */
export type WebhookTest = { event: 'webhook.test' } | { event: WebhookTestType; sample: JobEventPayload };

/**
 * Sends a signed test event to the key's webhook now and returns its recorded attempt.
 * `timeoutMs` must outlast the dispatcher's own delivery timeout.
 */
export async function sendTestWebhook(
  db: Knex,
  bus: Bus,
  apiKeyId: number,
  ownerId?: number,
  timeoutMs?: number,
  test: WebhookTest = { event: 'webhook.test' },
): Promise<SendTestReply> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  const request =
    test.event !== 'webhook.test'
      ? { event: test.event, sample: { ...test.sample, user_id: userId, api_key_id: apiKeyId } }
      : {};
  return bus.rpc(webhookOutboundRpc, 'sendTest', { api_key_id: apiKeyId, user_id: userId, ...request }, { timeoutMs });
}

const SAMPLE_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A completed 5 s video job in the exact shape of a real `job.completed` (model, price, result
 * URL as this installation makes them), for a receiver to be tried on. Its id starts `job_test`
 * and names no job: GET /api/v1/jobs/<id> and its media URL answer 404.
 */
export function sampleCompletedJob(
  publicBaseUrl: string,
  falEndpoints: FalEndpoints,
  now = new Date(),
): JobEventPayload {
  const id = `job_test${Array.from(randomBytes(16), (b) => SAMPLE_ID_ALPHABET[b % SAMPLE_ID_ALPHABET.length]).join('')}`;
  return {
    job_id: id,
    user_id: 1,
    api_key_id: 1,
    status: 'completed',
    model_id: VIDEO_MODEL,
    upstream_model: falEndpoints[VIDEO_MODEL]['text-to-video'],
    type: 'video',
    credits_consumed: videoCost(false, 5, '720p'),
    created_at: new Date(now.getTime() - 70_000).toISOString(),
    completed_at: now.toISOString(),
    result: { video: `${publicBaseUrl.replace(/\/+$/, '')}/media/jobs/${id}/video.mp4` },
    error: null,
    source: 'api',
    project_id: null,
  };
}
