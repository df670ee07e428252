import { ledgerQuery, USAGE_RANGE_MAX_DAYS, usageQuery } from '@mf/contracts';
import { noStoreHeader, ok, ref, type Json } from './openapi-helpers';
import type { Operation } from './operation';

/** A JSON reply that is CSV instead with `format=csv` or `Accept: text/csv`. */
function jsonOrCsv(description: string, schema: string, csvExample: string): { response: Json } {
  const json = ok(description, ref(schema), noStoreHeader);
  const content = json.content as Json;
  return {
    response: {
      ...json,
      content: {
        ...content,
        'text/csv': { schema: { type: 'string' }, example: csvExample },
      },
    },
  };
}

/** Usage and the ledger, for reconciling what was spent (docs/usage.md). */
export const USAGE_OPERATIONS = [
  {
    id: 'getUsage',
    sdk: 'hand-written',
    method: 'get',
    path: '/usage',
    scope: 'jobs:read',
    summary: 'Your usage by day, model or key',
    tag: 'Account',
    description: [
      `What was charged and refunded in [from, to) (at most ${USAGE_RANGE_MAX_DAYS} days), from the ledger, grouped by \`day\` (UTC), \`model\` and/or \`key\`.`,
      'Each charge and refund counts on the day it was made: a refund made after the range ends counts in the range that holds it. Over any range `totals.credits_net` is exactly what charges and refunds took from the balance (grants apart).',
      'With `format=csv` or `Accept: text/csv` the rows are CSV (RFC 4180, UTF-8, a header row), streamed. A bad date, a range over the limit or an unknown grouping is a 400 naming the parameter.',
    ].join(' '),
    query: usageQuery,
    reply: {
      status: 200,
      noStore: 'reply',
      description: 'The usage report.',
      schema: jsonOrCsv(
        'The usage report (JSON), or its rows as CSV.',
        'UsageReport',
        'day,jobs,credits_charged,credits_refunded,credits_net\r\n2026-03-01,3,1235,0,1235\r\n',
      ),
    },
  },
  {
    id: 'listLedger',
    sdk: 'hand-written',
    method: 'get',
    path: '/ledger',
    scope: 'jobs:read',
    summary: 'Your credit ledger',
    tag: 'Account',
    description: [
      'Every charge, refund and grant of the key owner, newest first, with the balance after each. Page with `starting_after` = the last `id` of the previous page while `has_more` is true.',
      'With `format=csv` or `Accept: text/csv` the entries are CSV (RFC 4180, UTF-8, a header row), streamed: every entry the filters name unless `limit` is given.',
    ].join(' '),
    query: ledgerQuery,
    reply: {
      status: 200,
      noStore: 'reply',
      description: 'A page of the ledger.',
      schema: jsonOrCsv(
        'A page of the ledger (JSON), or the entries as CSV.',
        'LedgerReply',
        'id,created_at,kind,reference,model,api_key_id,amount,delta,balance_after,description\r\n42,2026-03-01T10:00:00.000Z,charge,job:job_...,imagegen-2,7,50,-50,950,imagegen-2: 1 image\r\n',
      ),
    },
  },
] as const satisfies readonly Operation[];
