import type { Bus } from '@mf/bus';
import { billingKeyLimitsRpc, billingReportsRpc, billingRpc } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { account, ledgerEntries } from '../usecases/account.usecase';
import { charge } from '../usecases/charge.usecase';
import { grant } from '../usecases/grant.usecase';
import type { GroupCommitter } from '../usecases/group-commit';
import { keyLimits, setKeyLimits } from '../usecases/key-limits.usecase';
import { refund } from '../usecases/refund.usecase';
import { operatorUsage, usage } from '../usecases/usage.usecase';

/** Binds billing's RPC methods to its use cases. */
export function serveBillingRpc(
  bus: Bus,
  deps: { db: Knex; committer: GroupCommitter },
  prefetch: number,
): Promise<void> {
  const { db, committer } = deps;
  return bus.serveRpc(
    billingRpc,
    {
      charge: (req) => charge(committer, req),
      refund: (req) => refund(committer, req),
      grant: (req) => grant(db, req),
      account: (req) => account(db, req.user_id),
      ledger: (req) => ledgerEntries(db, req),
    },
    { prefetch },
  );
}

/** Binds the per-key limits' RPC methods (a queue of their own). */
export function serveKeyLimitsRpc(bus: Bus, db: Knex, prefetch: number): Promise<void> {
  return bus.serveRpc(
    billingKeyLimitsRpc,
    { set: (req) => setKeyLimits(db, req), get: (req) => keyLimits(db, req) },
    { prefetch },
  );
}

/** Binds the usage reports (a queue of their own: range reads never wait behind charges). */
export function serveReportsRpc(bus: Bus, db: Knex, prefetch: number): Promise<void> {
  return bus.serveRpc(
    billingReportsRpc,
    { usage: (req) => usage(db, req), operatorUsage: (req) => operatorUsage(db, req) },
    { prefetch },
  );
}
