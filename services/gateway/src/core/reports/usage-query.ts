import {
  USAGE_GROUPINGS,
  USAGE_RANGE_MAX_DAYS,
  usageQuery,
  validateQuery,
  type UsageGrouping,
  type UsageQuery,
  type Validated,
} from '@mf/contracts';

const DAY_MS = 86_400_000;

/** A usage request's range and groupings, checked, and the format asked for. */
export interface UsageAsk {
  from: string;
  to: string;
  group_by: UsageGrouping[];
  format?: 'json' | 'csv';
}

/**
 * The query of GET /api/v1/usage, validated by its contract (usageQuery), then the rules across
 * fields: `to` after `from`, at most USAGE_RANGE_MAX_DAYS apart. Without from/to the range is the
 * current calendar month (UTC), the billing period. A repeated group_by is taken as one list.
 */
export function validateUsageQuery(query: Record<string, unknown>, now = new Date()): Validated<UsageAsk> {
  const groupBy = query.group_by;
  const joined = Array.isArray(groupBy) && groupBy.every((g) => typeof g === 'string') ? groupBy.join(',') : groupBy;
  const checked = checkUsageQuery({
    ...query,
    ...(groupBy !== undefined ? { group_by: joined } : {}),
  });
  if (!checked.ok) return checked;
  const q = checked.value;
  const range = resolveRange(q, now);
  if (!range.ok) return range;
  const asked = (q.group_by ?? 'day').split(',');
  return {
    ok: true,
    value: {
      ...range.value,
      group_by: USAGE_GROUPINGS.filter((g) => asked.includes(g)),
      ...(q.format ? { format: q.format } : {}),
    },
  };
}

/**
 * A report's range from its checked `from` and `to`: the current calendar month (UTC) for what is
 * not given, `to` after `from`, at most USAGE_RANGE_MAX_DAYS apart.
 */
export function resolveRange(
  q: { from?: string; to?: string },
  now = new Date(),
): Validated<{ from: string; to: string }> {
  const from = q.from ? Date.parse(q.from) : Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const to = q.to ? Date.parse(q.to) : Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  if (to <= from) return { ok: false, error: 'to must be after from' };
  if (to - from > USAGE_RANGE_MAX_DAYS * DAY_MS)
    return { ok: false, error: `to must be at most ${USAGE_RANGE_MAX_DAYS} days after from` };
  return { ok: true, value: { from: new Date(from).toISOString(), to: new Date(to).toISOString() } };
}

/** The query by its one definition (@mf/contracts api/usage.ts). */
function checkUsageQuery(query: Record<string, unknown>): Validated<UsageQuery> {
  return validateQuery(usageQuery, query);
}
