import type { Bus } from '@mf/bus';
import { billingRpc } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { account, ledgerEntries } from '../usecases/account.usecase';
import { charge } from '../usecases/charge.usecase';
import { grant } from '../usecases/grant.usecase';
import type { GroupCommitter } from '../usecases/group-commit';
import { refund } from '../usecases/refund.usecase';

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
