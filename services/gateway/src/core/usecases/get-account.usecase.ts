import type { Bus } from '@mf/bus';
import { billingRpc } from '@mf/contracts';
import type { AuthContext } from '../auth/auth-context';

export interface AccountBody {
  credits_remaining: number;
  credits_used_this_period: number;
  credits_total_this_period: number;
  api_key: { id: number; scopes: string[] };
}

/** The contract's Account object: billing's counters plus the calling key. */
export async function getAccount(bus: Bus, auth: AuthContext, correlationId?: string): Promise<AccountBody> {
  const a = await bus.rpc(billingRpc, 'account', { user_id: auth.userId }, { correlationId });
  return {
    credits_remaining: a.credits_remaining,
    credits_used_this_period: a.credits_used_this_period,
    credits_total_this_period: a.credits_total_this_period,
    api_key: { id: auth.apiKeyId, scopes: auth.scopes },
  };
}
