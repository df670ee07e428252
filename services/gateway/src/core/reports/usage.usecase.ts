import type { Bus } from '@mf/bus';
import { billingReportsRpc, type UsageReport } from '@mf/contracts';
import { scopeOf } from '../../operations/table';
import { assertScope, type AuthContext } from '../auth/auth-context';
import { valid } from '../usecases/validated';
import { csvLine, csvLines } from './csv';
import type { ReportSink } from './report-sink';
import { validateUsageQuery } from './usage-query';

const COUNT_COLUMNS = ['jobs', 'credits_charged', 'credits_refunded', 'credits_net'] as const;
const GROUP_COLUMNS = { day: 'day', model: 'model', key: 'api_key_id' } as const;

/** The caller's usage (scope jobs:read) over the asked range, from billing's ledger (docs/usage.md). */
export async function usageReportOf(
  bus: Bus,
  auth: AuthContext,
  query: Record<string, unknown>,
  opts: { correlationId?: string } = {},
): Promise<{ report: UsageReport; format?: 'json' | 'csv' }> {
  assertScope(auth, scopeOf('getUsage'));
  return usageOfUser(bus, auth.userId, query, opts);
}

/** A user's usage over the asked range (the dashboard's usage page: the signed-in user's own). */
export async function usageOfUser(
  bus: Bus,
  userId: number,
  query: Record<string, unknown>,
  opts: { correlationId?: string } = {},
): Promise<{ report: UsageReport; format?: 'json' | 'csv' }> {
  const ask = valid(validateUsageQuery(query));
  const report = await bus.rpc(
    billingReportsRpc,
    'usage',
    { user_id: userId, from: ask.from, to: ask.to, group_by: ask.group_by },
    opts,
  );
  return { report, format: ask.format };
}

/** The report's rows as CSV: the grouped columns (day, model, api_key_id), then the counts. */
export async function writeUsageCsv(report: UsageReport, sink: ReportSink): Promise<void> {
  const columns = [...report.group_by.map((g) => GROUP_COLUMNS[g]), ...COUNT_COLUMNS];
  await sink.write(csvLine(columns));
  // Rows go out in slices, so a year by day, model and key never builds one large string.
  for (let i = 0; i < report.rows.length; i += 500) await sink.write(csvLines(columns, report.rows.slice(i, i + 500)));
}
