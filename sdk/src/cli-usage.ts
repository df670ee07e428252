// `mediaforge usage` and `mediaforge ledger`: the key owner's usage and credit ledger, printed as
// JSON or, with --csv, as the API's CSV (for a spreadsheet). The server checks every value.
import { checkFlags, int, str, UsageError, type Parsed } from './cli-args';
import type { LedgerApi, LedgerParams, UsageApi, UsageGrouping, UsageParams } from './usage';

export const USAGE_USAGE = `  usage [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--group-by day|model|key[,...]] [--csv]
                  credits charged and refunded in [from, to), default this month by day (jobs:read)
  ledger [--limit N] [--starting-after ID] [--since T] [--until T] [--csv]
                  credit ledger entries, newest first; --csv writes every entry (or --limit)`;

/** `usage`: the report as JSON, or its rows as CSV text. */
export async function usageCommand(usage: Pick<UsageApi, 'get' | 'csv'>, p: Parsed): Promise<unknown> {
  checkFlags(p, ['from', 'to', 'group-by', 'csv']);
  if (p.positional.length > 1) throw new UsageError(`usage takes no argument (got ${p.positional[1]})`);
  const params: UsageParams = {};
  const from = str(p, 'from');
  if (from !== undefined) params.from = from;
  const to = str(p, 'to');
  if (to !== undefined) params.to = to;
  const groupBy = str(p, 'group-by');
  if (groupBy !== undefined) params.groupBy = groupBy.split(',') as UsageGrouping[];
  return p.flags.has('csv') ? usage.csv(params) : usage.get(params);
}

/** `ledger`: one page as JSON, or the entries as CSV text. */
export async function ledgerCommand(ledger: Pick<LedgerApi, 'list' | 'csv'>, p: Parsed): Promise<unknown> {
  checkFlags(p, ['limit', 'starting-after', 'since', 'until', 'csv']);
  const params: LedgerParams = {};
  const limit = int(p, 'limit');
  if (limit !== undefined) params.limit = limit;
  const after = int(p, 'starting-after');
  if (after !== undefined) params.starting_after = after;
  const since = str(p, 'since');
  if (since !== undefined) params['created[gte]'] = since;
  const until = str(p, 'until');
  if (until !== undefined) params['created[lte]'] = until;
  return p.flags.has('csv') ? ledger.csv(params) : ledger.list(params);
}

/** CSV text as it came (for a file or a spreadsheet), anything else as JSON. */
export function printReport(v: unknown): void {
  process.stdout.write(typeof v === 'string' ? v : `${JSON.stringify(v, null, 2)}\n`);
}
