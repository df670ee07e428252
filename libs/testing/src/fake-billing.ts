import type { AccountReply, ChargeReply, LedgerReply, RefundReply } from '@mf/contracts';
import { AppError } from '@mf/errors';

/**
 * An in-memory billing on the real contract, for services' integration tests: balances, one
 * charge and one refund per reference, a refund closing its reference. Serve `handlers` with
 * `bus.serveRpc(billingRpc, fake.handlers)`.
 */
export class FakeBilling {
  balances = new Map<number, number>();
  charges = new Map<string, { user: number; amount: number }>();
  refunds = new Map<string, number>();
  /** The ledger line of each charge and refund, by reference (description, reason). */
  descriptions = new Map<string, string>();
  reasons = new Map<string, string>();

  handlers = {
    charge: async (req: {
      user_id: number;
      reference: string;
      amount: number;
      description?: string;
    }): Promise<ChargeReply> => {
      // Billing's order: a repeat of a charge made is answered as before (even once refunded); a
      // reference closed by a refund that came first is never charged.
      if (this.charges.has(req.reference))
        return { charged: req.amount, credits_remaining: this.balance(req.user_id), duplicate: true };
      if (this.refunds.has(req.reference))
        throw AppError.conflict(`reference ${req.reference} is closed (already refunded)`);
      if (this.balance(req.user_id) < req.amount)
        throw AppError.insufficientCredits(req.amount, this.balance(req.user_id));
      this.balances.set(req.user_id, this.balance(req.user_id) - req.amount);
      this.charges.set(req.reference, { user: req.user_id, amount: req.amount });
      if (req.description !== undefined) this.descriptions.set(req.reference, req.description);
      return { charged: req.amount, credits_remaining: this.balance(req.user_id), duplicate: false };
    },
    refund: async (req: { user_id: number; reference: string; reason?: string }): Promise<RefundReply> => {
      if (this.refunds.has(req.reference))
        return {
          refunded: this.refunds.get(req.reference)!,
          credits_remaining: this.balance(req.user_id),
          duplicate: true,
        };
      const amount = this.charges.get(req.reference)?.amount ?? 0;
      this.refunds.set(req.reference, amount);
      if (req.reason !== undefined) this.reasons.set(req.reference, req.reason);
      this.balances.set(req.user_id, this.balance(req.user_id) + amount);
      return { refunded: amount, credits_remaining: this.balance(req.user_id), duplicate: false };
    },
    grant: async (): Promise<never> => {
      throw new Error('not used');
    },
    account: async (req: { user_id: number }): Promise<AccountReply> => ({
      credits_remaining: this.balance(req.user_id),
      credits_used_this_period: 0,
      credits_total_this_period: 0,
      period_start: '1970-01-01T00:00:00.000Z',
      period_end: '1970-02-01T00:00:00.000Z',
    }),
    ledger: async (): Promise<LedgerReply> => ({ entries: [], has_more: false }),
  };

  balance(user: number): number {
    return this.balances.get(user) ?? 0;
  }

  /** Refunds whose reference starts with prefix (e.g. 'media:'). */
  refundsOf(prefix: string): [string, number][] {
    return [...this.refunds.entries()].filter(([ref]) => ref.startsWith(prefix));
  }
}
