import Joi from 'joi';
import type * as T from './generated/types';
import { MAX_CONCURRENT_JOBS_MAX, SPEND_LIMIT_MAX } from './api/key-limits';
import { QUEUES } from './names';
import { named } from './schema/rules';
import { usageRequest } from './api/usage';
import { operatorUsageRequest } from './operator-report';
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

/** A charge's model in usage: a catalog model id or an editor charge's kind (docs/usage.md). */
const usageModel = Joi.string().pattern(/^[a-z0-9][a-z0-9.-]{0,63}$/);

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
    model: usageModel.description(
      'What usage groups the charge under: a catalog model id, or the kind of editor charge (editor-turn, editor-voice, editor-music, editor-sfx).',
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
/** The most ledger entries one page holds. */
export const LEDGER_PAGE_MAX = 500;
export const ledgerRequest = named(
  Joi.object({
    user_id: userId,
    limit: Joi.number().integer().min(1).max(LEDGER_PAGE_MAX),
    before_id: Joi.number().integer().min(1),
    created_gte: Joi.string().isoDate().description('Only entries made at or after this instant.'),
    created_lte: Joi.string().isoDate().description('Only entries made at or before this instant.'),
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
    model: Joi.string()
      .allow(null)
      .required()
      .description(
        'What usage counts the entry under: the model (or editor charge kind) of its charge; null for a grant.',
      ),
    api_key_id: Joi.number()
      .integer()
      .allow(null)
      .required()
      .description('The API key its charge was made with; null for a grant or a charge made without a key.'),
    created_at: Joi.string().isoDate().required(),
  }),
  'LedgerEntry',
);
export const ledgerReply = named(
  Joi.object({
    entries: Joi.array().items(ledgerEntry).required(),
    has_more: Joi.boolean().required().description('More entries follow the last one of this page.'),
  }),
  'LedgerReply',
);

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

/** Billing's reports over ranges of the ledger (docs/usage.md), on a queue of their own. */
export const billingReportsRpc = {
  queue: QUEUES.billingReportsRpc,
  methods: {
    usage: rpcMethod<T.UsageRequest, T.UsageReport>('billing.usage', usageRequest),
    /** Every user's charges and refunds in a range, by user or model (the operator's report). */
    operatorUsage: rpcMethod<T.OperatorUsageRequest, T.OperatorUsageReply>(
      'billing.operator-usage',
      operatorUsageRequest,
    ),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
