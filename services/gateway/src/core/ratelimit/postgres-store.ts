import { RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Knex } from '@mf/db';
import { WINDOW_SEC } from './window';

/** Created by migration 0005_rate_limits in the gateway's schema (the library's own DDL). */
export const RATE_LIMIT_TABLE = 'rate_limits';

export interface PostgresStoreOptions {
  db: Knex;
  /** The gateway's schema, where the table lives. */
  schema: string;
  points: number;
  /** The window, seconds (default: the API limit's minute). */
  durationSec?: number;
  keyPrefix: string;
  insurance?: RateLimiterAbstract;
}

/**
 * Counts in one row per key, shared by every replica on the same database. Each consume is one
 * INSERT ... ON CONFLICT DO UPDATE ... RETURNING, so concurrent requests from any number of
 * replicas serialise on the row: no lost updates, no more than `points` allowed per window.
 */
export function postgresStore({
  db,
  schema,
  points,
  durationSec = WINDOW_SEC,
  keyPrefix,
  insurance,
}: PostgresStoreOptions): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    schemaName: schema,
    tableName: RATE_LIMIT_TABLE,
    // Our migration owns the table: the service's role need not create tables at run time.
    tableCreated: true,
    keyPrefix,
    points,
    duration: durationSec,
    insuranceLimiter: insurance,
  });
}
