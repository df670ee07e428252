import Joi from 'joi';
import { QUEUES } from './names';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';

/**
 * Billing: the only place credits move. Every movement is a ledger row with a unique reference
 * (`job:<id>`, `turn:<id>`, `grant:<id>`); repeating an operation with the same reference is a no-op.
 */
const reference = Joi.string().pattern(/^[a-z]+:[A-Za-z0-9._:-]{1,200}$/).required();
const userId = Joi.number().integer().min(1).required();

export interface ChargeRequest {
  user_id: number;
  reference: string;
  amount: number;
  description?: string;
}
export interface ChargeReply {
  charged: number;
  credits_remaining: number;
  /** true when this reference had already been charged: nothing moved this time. */
  duplicate: boolean;
}

export interface RefundRequest {
  user_id: number;
  reference: string;
  reason?: string;
}
export interface RefundReply {
  /** Exactly what the reference charged, or 0 when it was refunded before or never charged. */
  refunded: number;
  credits_remaining: number;
  duplicate: boolean;
}

export interface GrantRequest {
  user_id: number;
  reference: string;
  amount: number;
  description?: string;
}
export interface GrantReply {
  granted: number;
  credits_remaining: number;
  duplicate: boolean;
}

export interface AccountRequest {
  user_id: number;
}
export interface AccountReply {
  credits_remaining: number;
  credits_used_this_period: number;
  credits_total_this_period: number;
  /** The billing period: the current calendar month in UTC, [period_start, period_end). */
  period_start: string;
  period_end: string;
}

export type LedgerKind = 'charge' | 'refund' | 'grant';
export interface LedgerRequest {
  user_id: number;
  limit?: number;
  before_id?: number;
}
export interface LedgerEntry {
  id: number;
  kind: LedgerKind;
  reference: string;
  amount: number;
  balance_after: number;
  description: string | null;
  created_at: string;
}
export interface LedgerReply {
  entries: LedgerEntry[];
}

export const billingRpc = {
  queue: QUEUES.billingRpc,
  methods: {
    charge: rpcMethod<ChargeRequest, ChargeReply>(
      'billing.charge',
      Joi.object<ChargeRequest>({
        user_id: userId,
        reference,
        amount: Joi.number().integer().min(1).max(1_000_000_000).required(),
        description: Joi.string().max(500),
      }),
    ),
    refund: rpcMethod<RefundRequest, RefundReply>(
      'billing.refund',
      Joi.object<RefundRequest>({ user_id: userId, reference, reason: Joi.string().max(500) }),
    ),
    grant: rpcMethod<GrantRequest, GrantReply>(
      'billing.grant',
      Joi.object<GrantRequest>({
        user_id: userId,
        reference,
        amount: Joi.number().integer().min(1).max(1_000_000_000).required(),
        description: Joi.string().max(500),
      }),
    ),
    account: rpcMethod<AccountRequest, AccountReply>('billing.account', Joi.object<AccountRequest>({ user_id: userId })),
    ledger: rpcMethod<LedgerRequest, LedgerReply>(
      'billing.ledger',
      Joi.object<LedgerRequest>({
        user_id: userId,
        limit: Joi.number().integer().min(1).max(500),
        before_id: Joi.number().integer().min(1),
      }),
    ),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
