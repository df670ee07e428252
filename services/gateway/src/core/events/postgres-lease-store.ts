import type { Knex } from '@mf/db';
import type { Lease, LeaseStore } from './shared-stream-slots';

/** Created by migration 0008_stream_slots in the gateway's schema. */
export const STREAM_SLOTS_TABLE = 'stream_slots';

/**
 * Stream slots in Postgres (RATE_LIMIT_STORE=postgres): a row per open stream with its expiry
 * (the database's clock). A take locks its key (a transaction-level advisory lock) so that
 * concurrent takes on any replica count one after the other: never more than the limit.
 */
export function postgresLeaseStore(db: Knex, schema: string): LeaseStore {
  const table = `${schema}.${STREAM_SLOTS_TABLE}`;
  // clock_timestamp(), not now(): now() is the transaction's start, and a take may wait on the
  // key's lock for a while; its lease runs from when it is granted.
  const ttl = (ms: number) => db.raw(`clock_timestamp() + (? * interval '1 millisecond')`, [ms]);
  return {
    take: (lease, limit, ttlMs) =>
      db.transaction(async (trx) => {
        await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('stream_slots:' || ?))`, [lease.key]);
        await trx(table).where({ key: lease.key }).andWhere('expires_at', '<', trx.raw('clock_timestamp()')).delete();
        const [{ n }] = await trx(table).where({ key: lease.key }).count<{ n: string }[]>('* as n');
        if (Number(n) >= limit) return false;
        await trx(table).insert({ slot_id: lease.slotId, key: lease.key, expires_at: ttl(ttlMs) });
        return true;
      }),
    renew: async (leases: Lease[], ttlMs) => {
      await db(table)
        .insert(leases.map((l) => ({ slot_id: l.slotId, key: l.key, expires_at: ttl(ttlMs) })))
        .onConflict('slot_id')
        .merge(['expires_at']);
      // Leases of keys nobody opens a stream on again are never dropped by a take: sweep them here.
      await db(table).where('expires_at', '<', db.raw(`now() - interval '1 minute'`)).delete();
    },
    free: async (lease) => {
      await db(table).where({ slot_id: lease.slotId }).delete();
    },
  };
}
