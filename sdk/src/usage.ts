// Usage and the ledger of the key owner (GET /api/v1/usage, GET /api/v1/ledger), as JSON or CSV.
// Kept out of client.ts; the client hands in its transport.
import type { components, paths } from './generated/openapi';
import { route } from './generated/operations';
import type { WebhookCallOptions, WebhookTransport } from './webhook-deliveries';

type Schemas = components['schemas'];

export type UsageReport = Schemas['UsageReport'];
export type UsageRow = Schemas['UsageRow'];
export type LedgerEntry = Schemas['LedgerEntry'];
export type LedgerPage = Schemas['LedgerReply'];
export type UsageGrouping = 'day' | 'model' | 'key';

/** The usage query; `groupBy` one grouping or several (default day). Dates are YYYY-MM-DD (UTC) or ISO timestamps. */
export interface UsageParams {
  from?: string;
  to?: string;
  groupBy?: UsageGrouping | UsageGrouping[];
}
export type LedgerParams = Omit<NonNullable<paths['/api/v1/ledger']['get']['parameters']['query']>, 'format'>;

function usageQuery(params: UsageParams, format?: 'csv'): Record<string, string | undefined> {
  const groupBy = params.groupBy === undefined ? undefined : [params.groupBy].flat().join(',');
  return { from: params.from, to: params.to, group_by: groupBy, format };
}

function ledgerQuery(params: LedgerParams, format?: 'csv'): Record<string, string | undefined> {
  const query: Record<string, string | undefined> = { format };
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) query[k] = String(v);
  return query;
}

/** `client.usage`: what was charged and refunded, grouped, for a range (docs/usage.md). */
export class UsageApi {
  constructor(private readonly call: WebhookTransport) {}

  /** The report as JSON: rows per group and their totals. */
  get(params: UsageParams = {}, opts?: WebhookCallOptions): Promise<UsageReport> {
    return this.call({ ...route('getUsage'), query: usageQuery(params), opts });
  }

  /** The same rows as CSV text (RFC 4180, a header row). */
  csv(params: UsageParams = {}, opts?: WebhookCallOptions): Promise<string> {
    return this.call({ ...route('getUsage'), query: usageQuery(params, 'csv'), opts });
  }
}

/** `client.ledger`: every charge, refund and grant, newest first. */
export class LedgerApi {
  constructor(private readonly call: WebhookTransport) {}

  /** One page; pass the last entry's `id` as `starting_after` while `has_more`. */
  list(params: LedgerParams = {}, opts?: WebhookCallOptions): Promise<LedgerPage> {
    return this.call({ ...route('listLedger'), query: ledgerQuery(params), opts });
  }

  /** Every entry the filters name, page after page as the loop asks for more. */
  async *all(
    params: Omit<LedgerParams, 'starting_after'> = {},
    opts?: WebhookCallOptions,
  ): AsyncGenerator<LedgerEntry, void, undefined> {
    let startingAfter: number | undefined;
    for (;;) {
      const page = await this.list({ ...params, ...(startingAfter ? { starting_after: startingAfter } : {}) }, opts);
      yield* page.entries;
      if (!page.has_more || page.entries.length === 0) return;
      startingAfter = page.entries[page.entries.length - 1].id;
    }
  }

  /** The entries as CSV text: all those the filters name, or `limit` of them. */
  csv(params: LedgerParams = {}, opts?: WebhookCallOptions): Promise<string> {
    return this.call({ ...route('listLedger'), query: ledgerQuery(params, 'csv'), opts });
  }
}
