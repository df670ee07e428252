import {
  operatorReportQuery,
  validateQuery,
  type OperatorReportGrouping,
  type OperatorReportQuery,
  type Validated,
} from '@mf/contracts';
import { resolveRange } from './usage-query';

export interface OperatorReportAsk {
  from: string;
  to: string;
  by: OperatorReportGrouping;
  format?: 'json' | 'csv';
}

/**
 * The operator report's query (the dashboard's admin page; the CLI's flags under the same names):
 * checked by its contract, then the range as usage has it (default this month, at most a year).
 * Grouped by user when `by` is not given.
 */
export function validateOperatorReportQuery(
  query: Record<string, unknown>,
  now = new Date(),
): Validated<OperatorReportAsk> {
  const checked: Validated<OperatorReportQuery> = validateQuery(operatorReportQuery, query);
  if (!checked.ok) return checked;
  const range = resolveRange(checked.value, now);
  if (!range.ok) return range;
  const { by = 'user', format } = checked.value;
  return { ok: true, value: { ...range.value, by, ...(format ? { format } : {}) } };
}
