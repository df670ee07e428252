import type { Migration } from '@mf/db';

/**
 * In order. Append only. The schema "exports" and its migrations table are created on start even
 * while this list is empty; the tables arrive with the service's features.
 */
export const migrations: Migration[] = [];
