import { MediaforgeClient } from './index';
import { parseArgs, UsageError } from './cli-args';
import { ledgerCommand, usageCommand } from './cli-usage';

/** client.usage and client.ledger: the queries they send and what they resolve, over a recording fetch. */
describe('client.usage and client.ledger', () => {
  const urls: string[] = [];
  let answer: { body: string; type: string } = { body: '{}', type: 'application/json' };
  const client = new MediaforgeClient({
    baseUrl: 'http://api.test',
    apiKey: 'mf_live_x',
    maxRetries: 0,
    fetch: async (url) => {
      urls.push(url);
      return new Response(answer.body, { status: 200, headers: { 'content-type': answer.type } });
    },
  });
  beforeEach(() => {
    urls.length = 0;
    answer = { body: '{}', type: 'application/json' };
  });

  it('asks for usage with groupings joined, and CSV as text', async () => {
    await client.usage.get();
    await client.usage.get({ from: '2026-03-01', to: '2026-04-01', groupBy: ['model', 'key'] });
    answer = { body: 'day,jobs,credits_charged,credits_refunded,credits_net\r\n', type: 'text/csv; charset=utf-8' };
    expect(await client.usage.csv({ groupBy: 'day' })).toBe(answer.body);
    expect(urls).toEqual([
      'http://api.test/api/v1/usage',
      'http://api.test/api/v1/usage?from=2026-03-01&to=2026-04-01&group_by=model%2Ckey',
      'http://api.test/api/v1/usage?group_by=day&format=csv',
    ]);
  });

  it('follows ledger pages while has_more, and asks for CSV', async () => {
    const pages = [
      { entries: [{ id: 9 }, { id: 8 }], has_more: true },
      { entries: [{ id: 7 }], has_more: false },
    ];
    const paging = new MediaforgeClient({
      baseUrl: 'http://api.test',
      apiKey: 'mf_live_x',
      fetch: async (url) => {
        urls.push(url);
        return new Response(JSON.stringify(pages.shift()), { headers: { 'content-type': 'application/json' } });
      },
    });
    const ids: number[] = [];
    for await (const e of paging.ledger.all({ limit: 2, 'created[gte]': '2026-03-01T00:00:00Z' })) ids.push(e.id);
    expect(ids).toEqual([9, 8, 7]);
    await client.ledger.csv({ limit: 5 });
    expect(urls).toEqual([
      'http://api.test/api/v1/ledger?limit=2&created%5Bgte%5D=2026-03-01T00%3A00%3A00Z',
      'http://api.test/api/v1/ledger?limit=2&created%5Bgte%5D=2026-03-01T00%3A00%3A00Z&starting_after=8',
      'http://api.test/api/v1/ledger?format=csv&limit=5',
    ]);
  });
});

describe('mediaforge usage and ledger', () => {
  const recorder = () => {
    const calls: [string, unknown][] = [];
    const api = {
      get: async (params: unknown) => (calls.push(['get', params]), { rows: [] }),
      list: async (params: unknown) => (calls.push(['list', params]), { entries: [] }),
      csv: async (params: unknown) => (calls.push(['csv', params]), 'a,b\r\n'),
    };
    return { calls, api: api as never };
  };

  it('maps --from --to --group-by and --csv onto client.usage', async () => {
    const r = recorder();
    await usageCommand(r.api, parseArgs(['usage']));
    const csv = await usageCommand(
      r.api,
      parseArgs(['usage', '--from', '2026-03-01', '--to', '2026-04-01', '--group-by', 'model,key', '--csv']),
    );
    expect(csv).toBe('a,b\r\n');
    expect(r.calls).toEqual([
      ['get', {}],
      ['csv', { from: '2026-03-01', to: '2026-04-01', groupBy: ['model', 'key'] }],
    ]);
  });

  it('maps the ledger flags onto client.ledger, and refuses unknown ones', async () => {
    const r = recorder();
    await ledgerCommand(
      r.api,
      parseArgs(['ledger', '--limit', '5', '--starting-after', '42', '--since', '2026-03-01T00:00:00Z']),
    );
    await ledgerCommand(r.api, parseArgs(['ledger', '--csv', '--until', '2026-04-01T00:00:00Z']));
    expect(r.calls).toEqual([
      ['list', { limit: 5, starting_after: 42, 'created[gte]': '2026-03-01T00:00:00Z' }],
      ['csv', { 'created[lte]': '2026-04-01T00:00:00Z' }],
    ]);
    await expect(usageCommand(r.api, parseArgs(['usage', '--groupby', 'day']))).rejects.toThrow(UsageError);
  });
});
