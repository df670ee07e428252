import type { Bus } from '@mf/bus';
import { billingRpc, type AccountReply, type LedgerReply } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { findUserById } from '../repositories/users.repository';
import { owesSignupCredits, settleSignupCredits } from './signup-credits.usecase';

export interface BalanceDeps {
  db: Knex;
  bus: Bus;
  /** Told when a sign-up grant billing did not confirm is still not granted. */
  onGrantFailure?: (err: unknown) => void;
  correlationId?: string;
}

/**
 * The signed-in user's counters, straight from billing. A sign-up grant billing did not confirm at
 * sign-up is retried first, so the balance shown includes it as soon as billing answers.
 */
export async function balanceOf(deps: BalanceDeps, userId: number): Promise<AccountReply> {
  const user = await findUserById(deps.db, userId);
  if (user && owesSignupCredits(user)) await settleSignupCredits(deps.db, deps.bus, user, deps.onGrantFailure);
  return deps.bus.rpc(billingRpc, 'account', { user_id: userId }, { correlationId: deps.correlationId });
}

/** A page of the user's ledger, newest first (each entry with its signed delta). */
export function ledgerOf(
  bus: Bus,
  userId: number,
  page: { limit?: number; beforeId?: number },
  correlationId?: string,
): Promise<LedgerReply> {
  const request = {
    user_id: userId,
    ...(page.limit ? { limit: page.limit } : {}),
    ...(page.beforeId ? { before_id: page.beforeId } : {}),
  };
  return bus.rpc(billingRpc, 'ledger', request, { correlationId });
}
