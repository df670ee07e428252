import Joi from 'joi';
import type * as T from './generated/types';
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
const amount = Joi.number().integer().min(1).max(1_000_000_000).required();
const credits = Joi.number().integer().required();
const duplicate = Joi.boolean()
  .required()
  .description('true when this reference had already been handled: nothing moved this time.');

export const LEDGER_KINDS = ['charge', 'refund', 'grant'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export const chargeRequest = named(
  Joi.object({ user_id: userId, reference, amount, description: Joi.string().max(500) }),
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
