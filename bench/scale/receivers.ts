import type { Pool } from 'pg';
import type { BenchFleet } from '../lib/fleet';
import type { Tenants } from '../lib/tenants';
import type { WebhookTarget } from '../webhooks/scenarios';
import { submitMany, waitAllEnded, waitOutboxDrained } from './common';

/**
 * The webhooks bench's scenarios on the whole fleet: a tenant is a user and key whose webhook is
 * the receiver's URL, with `heldFor(i)` jobs (the i-th tenant made) submitted and held at the
 * upstream first; completing one completes its next held job at the upstream, which calls back.
 */
export function fleetWebhookTarget(
  fleet: BenchFleet,
  tenants: Tenants,
  pool: Pool,
  heldFor: (i: number) => number,
): WebhookTarget {
  let made = 0;
  const completed: string[] = [];
  return {
    settle: async () => {
      await waitAllEnded(pool, completed);
      await waitOutboxDrained(pool);
    },
    tenant: async (url) => {
      const n = heldFor(made++);
      const user = await tenants.make(url);
      const { ids } = await submitMany(fleet, [user.key], n, 'scale webhooks', 4);
      let next = 0;
      return {
        completeJob: () => {
          if (next >= ids.length) return Promise.reject(new Error(`the tenant held only ${ids.length} jobs`));
          const id = ids[next++];
          completed.push(id);
          fleet.provider.complete(id);
          return Promise.resolve(id);
        },
      };
    },
  };
}
