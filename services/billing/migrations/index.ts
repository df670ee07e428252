import type { Migration } from '@mf/db';
import { balancesLedger } from './0001_balances_ledger';

/** In order. Append only. */
export const migrations: Migration[] = [balancesLedger];
