import Joi from 'joi';
import type * as T from './generated/types';
import { MAX_CONCURRENT_JOBS_MAX, SPEND_LIMIT_MAX } from './api/key-limits';
import { QUEUES } from './names';
import { named } from './schema/rules';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';

/**
 * Billing: the only place credits move. Every movement is a ledger row with a unique reference
 * (`job:<id>`, `turn:<id>`, `grant:<id>`); repeating an operation with the same reference is a no-op.
 * Types: generated/types.ts, from these schemas.
 */
const reference = Joi.string()
  .pattern(/^[a-z]+:[A-Za-z0-9._:-]{1,200}$/)
  .required();
const userId = Joi.number().integer().min(1).required();
/** The most credits one charge, refund or grant moves. */
export const AMOUNT_MAX = 1_000_000_000;
const amount = Joi.number().integer().min(1).max(AMOUNT_MAX).required();
const credits = Joi.number().integer().required();
const duplicate = Joi.boolean()
  .required()
  .description('true when this reference had already been handled: nothing moved this time.');

export const LEDGER_KINDS = ['charge', 'refund', 'grant'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export const chargeRequest = named(
  Joi.object({
    user_id: userId,
    reference,
    amount,
    description: Joi.string().max(500),
    api_key_id: Joi.number()
      .integer()
      .min(1)
      .allow(null)
      .description(
        "The API key the charge is made with: the key's spend limit and concurrent-jobs limit apply (402 / 429), and its counters move.",
      ),
  }),
  'ChargeRequest',
);
export const chargeReply = named(
  Joi.object({ charged: credits, credits_remaining: credits, duplicate }),
  'ChargeReply',
);
export const refundRequest = named(
  Joi.object({ user_id: userId, reference, reason: Joi.string().max(500) }),
  'RefundRequest',
);
export const refundReply = named(
  Joi.object({
    refunded: credits.description(
      'Exactly what the reference charged, or 0 when it was refunded before or never charged.',
    ),
    credits_remaining: credits,
    duplicate,
  }),
  'RefundReply',
);
export const grantRequest = named(
  Joi.object({ user_id: userId, reference, amount, description: Joi.string().max(500) }),
  'GrantRequest',
);
export const grantReply = named(Joi.object({ granted: credits, credits_remaining: credits, duplicate }), 'GrantReply');
export const accountRequest = named(Joi.object({ user_id: userId }), 'AccountRequest');
export const accountReply = named(
  Joi.object({
    credits_remaining: credits,
    credits_used_this_period: credits,
    credits_total_this_period: credits,
    period_start: Joi.string()
      .isoDate()
      .required()
      .description('The billing period: the current calendar month in UTC, [period_start, period_end).'),
    period_end: Joi.string().isoDate().required(),
  }),
  'AccountReply',
);
export const ledgerRequest = named(
  Joi.object({
    user_id: userId,
    limit: Joi.number().integer().min(1).max(500),
    before_id: Joi.number().integer().min(1),
  }),
  'LedgerRequest',
);
export const ledgerEntry = named(
  Joi.object({
    id: Joi.number().integer().required(),
    kind: Joi.string()
      .valid(...LEDGER_KINDS)
      .required(),
    reference: Joi.string().required(),
    amount: credits.description(
      'The size of the movement, never negative (a refund of 0 closes a reference that was never charged).',
    ),
    delta: credits.description(
      'The signed change to the balance: -amount for a charge, +amount for a refund or a grant.',
    ),
    balance_after: credits,
    description: Joi.string().allow(null).required(),
    created_at: Joi.string().isoDate().required(),
  }),
  'LedgerEntry',
);
export const ledgerReply = named(Joi.object({ entries: Joi.array().items(ledgerEntry).required() }), 'LedgerReply');

const apiKeyId = Joi.number().integer().min(1).required();
const spendLimit = Joi.number()
  .integer()
  .min(1)
  .max(SPEND_LIMIT_MAX)
  .allow(null)
  .description('Most credits the key may spend per calendar month (UTC); null: no limit.');
const maxConcurrentJobs = Joi.number()
  .integer()
  .min(1)
  .max(MAX_CONCURRENT_JOBS_MAX)
  .allow(null)
  .description('Most jobs of the key running at once; null: no limit.');

/** Sets a key's limits (both fields, null lifting one). The caller has checked the key is the user's. */
export const setKeyLimitsRequest = named(
  Joi.object({
    user_id: userId,
    api_key_id: apiKeyId,
    spend_limit: spendLimit.required(),
    max_concurrent_jobs: maxConcurrentJobs.required(),
  }),
  'SetKeyLimitsRequest',
);
export const keyLimitsView = named(
  Joi.object({
    api_key_id: apiKeyId,
    spend_limit: spendLimit.required(),
    max_concurrent_jobs: maxConcurrentJobs.required(),
    spent_this_period: credits.description('Credits the key spent this calendar month (UTC), refunds deducted.'),
    active_jobs: credits.description('Jobs of the key charged and not yet ended.'),
  }),
  'KeyLimits',
);
export const keyLimitsRequest = named(
  Joi.object({ user_id: userId, api_key_ids: Joi.array().items(apiKeyId).max(1000).required() }),
  'KeyLimitsRequest',
);
export const keyLimitsReply = named(
  Joi.object({
    keys: Joi.array()
      .items(keyLimitsView)
      .required()
      .description('One per key asked for, in the order asked; a key never charged nor limited has nulls and zeros.'),
  }),
  'KeyLimitsReply',
);

export const billingRpc = {
  queue: QUEUES.billingRpc,
  methods: {
    charge: rpcMethod<T.ChargeRequest, T.ChargeReply>('billing.charge', chargeRequest),
    refund: rpcMethod<T.RefundRequest, T.RefundReply>('billing.refund', refundRequest),
    grant: rpcMethod<T.GrantRequest, T.GrantReply>('billing.grant', grantRequest),
    account: rpcMethod<T.AccountRequest, T.AccountReply>('billing.account', accountRequest),
    ledger: rpcMethod<T.LedgerRequest, T.LedgerReply>('billing.ledger', ledgerRequest),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;

/** Billing's per-key limits, on a queue of their own (the money path's queue stays the hot one). */
export const billingKeyLimitsRpc = {
  queue: QUEUES.billingKeyLimitsRpc,
  methods: {
    set: rpcMethod<T.SetKeyLimitsRequest, T.KeyLimits>('billing.key-limits.set', setKeyLimitsRequest),
    get: rpcMethod<T.KeyLimitsRequest, T.KeyLimitsReply>('billing.key-limits.get', keyLimitsRequest),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
