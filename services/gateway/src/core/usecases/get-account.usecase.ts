import type { Bus } from '@mf/bus';
import { billingKeyLimitsRpc, billingRpc } from '@mf/contracts';
import type { AuthContext } from '../auth/auth-context';

export interface AccountBody {
  credits_remaining: number;
  credits_used_this_period: number;
  credits_total_this_period: number;
  api_key: { id: number; scopes: string[] };
  spend_limit: number | null;
  spent_this_period: number;
  max_concurrent_jobs: number | null;
  active_jobs: number;
}

/** The contract's Account object: billing's counters plus the calling key, and that key's limits and use. */
export async function getAccount(bus: Bus, auth: AuthContext, correlationId?: string): Promise<AccountBody> {
  const [a, limits] = await Promise.all([
    bus.rpc(billingRpc, 'account', { user_id: auth.userId }, { correlationId }),
    bus.rpc(billingKeyLimitsRpc, 'get', { user_id: auth.userId, api_key_ids: [auth.apiKeyId] }, { correlationId }),
  ]);
  const key = limits.keys.at(0);
  return {
    credits_remaining: a.credits_remaining,
    credits_used_this_period: a.credits_used_this_period,
    credits_total_this_period: a.credits_total_this_period,
    api_key: { id: auth.apiKeyId, scopes: auth.scopes },
    spend_limit: key?.spend_limit ?? null,
    spent_this_period: key?.spent_this_period ?? 0,
    max_concurrent_jobs: key?.max_concurrent_jobs ?? null,
    active_jobs: key?.active_jobs ?? 0,
  };
}
