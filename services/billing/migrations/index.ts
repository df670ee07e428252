import type { Migration } from '@mf/db';
import { balancesLedger } from './0001_balances_ledger';
import { lockBatch } from './0002_lock_batch';
import { keyLimits } from './0003_key_limits';
import { ledgerUsage } from './0004_ledger_usage';

/** In order. Append only. */
export const migrations: Migration[] = [balancesLedger, lockBatch, keyLimits, ledgerUsage];
