import type { Bus } from '@mf/bus';
import { imageCost, validateImageRequest, validateVideoRequest, videoCost } from '@mf/catalog';
import {
  billingKeyLimitsRpc,
  billingRpc,
  ESTIMATE_MODEL_MESSAGE,
  FAST_VIDEO_MODEL,
  IMAGE_MODEL,
  MODEL_IDS,
  type EstimateReply,
  type ModelId,
  type PlaygroundBody,
} from '@mf/contracts';
import { AppError, INVALID_JSON_BODY, NOT_AN_OBJECT } from '@mf/errors';
import type { Knex } from '@mf/db';
import type { AuthContext } from '../auth/auth-context';
import { playgroundKey } from './playground.usecase';
import { valid } from './validated';

/** The price of a submit body for `model`: 400 with the submit's own message for any bad field. */
export function priceOf(model: ModelId, fields: Record<string, unknown>): number {
  if (model === IMAGE_MODEL) return imageCost(valid(validateImageRequest(fields)).num_images);
  // The fast model is the submit's `fast: true`: implied when left out. The fields are checked first,
  // so every message a submit would give comes out the same; then a contradicting `fast`.
  const fast = model === FAST_VIDEO_MODEL;
  const v = valid(validateVideoRequest(fast && (fields.fast ?? null) === null ? { ...fields, fast: true } : fields));
  if (fast && !v.fast) throw AppError.badRequest(`fast must be true for ${FAST_VIDEO_MODEL}`);
  if (!fast && v.fast)
    throw AppError.badRequest(`fast: true is the ${FAST_VIDEO_MODEL} model: estimate that model instead`);
  return videoCost(v.fast, v.duration_seconds, v.resolution);
}

/** Splits the body into its model and the submit's fields. */
function modelAndFields(body: unknown): { model: ModelId; fields: Record<string, unknown> } {
  if (body === undefined) throw AppError.badRequest(INVALID_JSON_BODY);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw AppError.badRequest(NOT_AN_OBJECT);
  const { model, ...fields } = body as Record<string, unknown>;
  if (model === undefined || model === null) throw AppError.badRequest('model is required');
  if (!(MODEL_IDS as readonly unknown[]).includes(model)) throw AppError.badRequest(ESTIMATE_MODEL_MESSAGE);
  return { model: model as ModelId, fields };
}

/**
 * POST /api/v1/estimate: what submitting `body` to `model` would charge, whether the balance (and
 * the key's monthly spend limit) allows it. Validated exactly as the submit; charges nothing.
 */
export async function estimateCost(
  bus: Bus,
  /** The key whose spend limit applies; null: none (a playground run with the session). */
  auth: Pick<AuthContext, 'userId'> & { apiKeyId: number | null },
  body: unknown,
  correlationId?: string,
): Promise<EstimateReply> {
  const { model, fields } = modelAndFields(body);
  const credits = priceOf(model, fields);
  const [account, limits] = await Promise.all([
    bus.rpc(billingRpc, 'account', { user_id: auth.userId }, { correlationId }),
    auth.apiKeyId === null
      ? { keys: [] }
      : bus.rpc(billingKeyLimitsRpc, 'get', { user_id: auth.userId, api_key_ids: [auth.apiKeyId] }, { correlationId }),
  ]);
  const key = limits.keys.at(0);
  const underLimit = key?.spend_limit == null || credits <= key.spend_limit - key.spent_this_period;
  return {
    model,
    credits,
    credits_remaining: account.credits_remaining,
    affordable: credits <= account.credits_remaining && underLimit,
  };
}

/**
 * The playground's estimate (POST /dashboard/api/estimate): its body as the run's, input being the
 * public estimate body. The key (when given) must be one of the user's active keys.
 */
export async function estimatePlayground(
  db: Knex,
  bus: Bus,
  userId: number,
  body: PlaygroundBody,
  correlationId?: string,
): Promise<EstimateReply> {
  const key = await playgroundKey(db, userId, body.api_key_id);
  return estimateCost(bus, { userId, apiKeyId: key?.apiKeyId ?? null }, body.input, correlationId);
}
