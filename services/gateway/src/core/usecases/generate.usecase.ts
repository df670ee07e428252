import { randomInt } from 'node:crypto';
import type { Bus } from '@mf/bus';
import { validateImageRequest, validateVideoRequest } from '@mf/catalog';
import {
  jobsRpc,
  SEED_MAX,
  type Scope,
  type SubmitIdempotency,
  type SubmitJobReply,
  type SubmitJobRequest,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import { scopeOf, type OperationId } from '../../operations/table';
import { assertScope, type AuthContext } from '../auth/auth-context';
import { valid } from './validated';

export const GENERATION_TYPES = ['image', 'video'] as const;
export type GenerationType = (typeof GENERATION_TYPES)[number];

/** The submit operation of each kind of generation (its scope is the table's). */
const SUBMIT_OPERATION = { video: 'generateVideo', image: 'generateImage' } as const satisfies Record<
  GenerationType,
  OperationId
>;

/** The scope a kind of generation needs. */
export const generationScope = (type: GenerationType): Scope => scopeOf(SUBMIT_OPERATION[type]);

export interface SubmitOptions {
  /** How long a submit may take end to end (charge + provider submit). */
  submitTimeoutMs: number;
  correlationId?: string;
  /** From the client's Idempotency-Key: lets jobs answer a retry with the job it already made. */
  idempotency?: SubmitIdempotency;
}

/** The 202 body: the job service's reply plus where to poll it. */
export interface GenerationAccepted extends SubmitJobReply {
  poll_url: string;
}

/** A generation type given as data (the MCP tool's `type`): 400 for anything else. */
export function generationType(raw: unknown): GenerationType {
  if (!(GENERATION_TYPES as readonly unknown[]).includes(raw))
    throw AppError.badRequest(`type must be one of ${GENERATION_TYPES.join(', ')}`);
  return raw as GenerationType;
}

/** A random seed when none was given: stored with the job, so its output can be reproduced. */
function seedOf(seed: number | null): number {
  return seed ?? randomInt(0, SEED_MAX);
}

/** Who a job is for: the user, the key it is submitted with (null: the dashboard session), its source. */
type JobOwner = Pick<SubmitJobRequest, 'user_id' | 'api_key_id' | 'source'>;

function submitRequest(owner: JobOwner, type: GenerationType, body: unknown): SubmitJobRequest {
  if (type === 'video') {
    const v = valid(validateVideoRequest(body));
    return { ...owner, type, params: { ...v, seed: seedOf(v.seed) } };
  }
  const v = valid(validateImageRequest(body));
  return { ...owner, type, params: { ...v, seed: seedOf(v.seed) } };
}

/**
 * Submits an image or video generation: the scope (403), the body with the contract's messages
 * (400, nothing charged), a seed, then jobs charges and submits (402, 502 with refund). Returns at
 * once with the job id; the job is then polled or announced by webhook.
 */
export async function submitGeneration(
  bus: Bus,
  auth: AuthContext,
  type: GenerationType,
  body: unknown,
  opts: SubmitOptions,
): Promise<GenerationAccepted> {
  assertScope(auth, generationScope(type));
  return submit(bus, { user_id: auth.userId, api_key_id: auth.apiKeyId }, type, body, opts);
}

/**
 * The dashboard playground's submit, for the signed-in user: with one of their keys (its scope is
 * checked and the job is the key's: its webhook fires) or with the session alone (no key, no
 * webhook). Either way the job's source is `dashboard`.
 */
export async function submitPlaygroundGeneration(
  bus: Bus,
  userId: number,
  key: Pick<AuthContext, 'apiKeyId' | 'scopes'> | null,
  type: GenerationType,
  body: unknown,
  opts: SubmitOptions,
): Promise<GenerationAccepted> {
  if (key) assertScope(key, generationScope(type));
  return submit(bus, { user_id: userId, api_key_id: key ? key.apiKeyId : null, source: 'dashboard' }, type, body, opts);
}

async function submit(
  bus: Bus,
  owner: JobOwner,
  type: GenerationType,
  body: unknown,
  opts: SubmitOptions,
): Promise<GenerationAccepted> {
  const request: SubmitJobRequest = {
    ...submitRequest(owner, type, body),
    ...(opts.idempotency ? { idempotency: opts.idempotency } : {}),
  };
  const reply = await bus.rpc(jobsRpc, 'submit', request, {
    timeoutMs: opts.submitTimeoutMs,
    correlationId: opts.correlationId,
  });
  return { ...reply, poll_url: `/api/v1/jobs/${reply.job_id}` };
}
