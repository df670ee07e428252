import type { Bus } from '@mf/bus';
import {
  billingRpc,
  LEDGER_PAGE_MAX,
  ledgerQuery,
  validateQuery,
  type LedgerQuery,
  type LedgerReply,
  type LedgerRequest,
  type Validated,
} from '@mf/contracts';
import { scopeOf } from '../../operations/table';
import { assertScope, type AuthContext } from '../auth/auth-context';
import { valid } from '../usecases/validated';
import { csvLine, csvLines } from './csv';
import type { ReportSink } from './report-sink';

const COLUMNS = [
  'id',
  'created_at',
  'kind',
  'reference',
  'model',
  'api_key_id',
  'amount',
  'delta',
  'balance_after',
  'description',
] as const;

interface CallOptions {
  correlationId?: string;
}

/** A checked ledger query, ready to be asked of billing page by page. */
export interface LedgerAsk {
  query: LedgerQuery;
  /** `limit` was given (in CSV, without it every matching entry is written). */
  limited: boolean;
  format?: 'json' | 'csv';
}

export function ledgerAskOf(auth: AuthContext, query: Record<string, unknown>): LedgerAsk {
  assertScope(auth, scopeOf('listLedger'));
  const q = valid(checkLedgerQuery(query));
  return {
    query: q,
    limited: query.limit !== undefined && query.limit !== '',
    ...(q.format ? { format: q.format } : {}),
  };
}

/** The query by its one definition (@mf/contracts api/usage.ts). */
function checkLedgerQuery(query: Record<string, unknown>): Validated<LedgerQuery> {
  return validateQuery(ledgerQuery, query);
}

function ledgerRequest(userId: number, q: LedgerQuery, limit: number, beforeId?: number): LedgerRequest {
  return {
    user_id: userId,
    limit,
    ...(beforeId ? { before_id: beforeId } : {}),
    ...(q['created[gte]'] ? { created_gte: q['created[gte]'] } : {}),
    ...(q['created[lte]'] ? { created_lte: q['created[lte]'] } : {}),
  };
}

/** A page of the caller's ledger, newest first (scope jobs:read): the dashboard's ledger over the API. */
export function ledgerPageOf(
  bus: Bus,
  auth: AuthContext,
  ask: LedgerAsk,
  opts: CallOptions = {},
): Promise<LedgerReply> {
  const q = ask.query;
  return bus.rpc(billingRpc, 'ledger', ledgerRequest(auth.userId, q, q.limit, q.starting_after), opts);
}

/**
 * The entries the query names as CSV, newest first, fetched from billing a page at a time and
 * written as each arrives: all of them, or `limit` when given. The first page is fetched before
 * anything is written, so an error there is still an ordinary error answer.
 */
export async function ledgerCsvOf(
  bus: Bus,
  auth: AuthContext,
  ask: LedgerAsk,
  opts: CallOptions = {},
): Promise<(sink: ReportSink) => Promise<void>> {
  const q = ask.query;
  let left = ask.limited ? q.limit : Infinity;
  const fetchPage = (beforeId?: number) =>
    bus.rpc(billingRpc, 'ledger', ledgerRequest(auth.userId, q, Math.min(left, LEDGER_PAGE_MAX), beforeId), opts);
  let page = await fetchPage(q.starting_after);
  return async (sink) => {
    await sink.write(csvLine(COLUMNS));
    for (;;) {
      await sink.write(csvLines(COLUMNS, page.entries));
      left -= page.entries.length;
      if (!page.has_more || left <= 0 || page.entries.length === 0) return;
      page = await fetchPage(page.entries[page.entries.length - 1].id);
    }
  };
}
