import { csvRecords } from '../support/csv';
import { api, userWithKey, type TestUser } from '../support/fleet';
import { balanceBecomes, waitForJob } from '../support/jobs';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { startReferenceServer } from '../support/reference-server';

interface Entry {
  id: number;
  kind: string;
  reference: string;
  model: string | null;
  api_key_id: number | null;
  amount: number;
  delta: number;
  balance_after: number;
  description: string | null;
  created_at: string;
}
type Row = Record<string, string | number | null>;

/**
 * Usage and the ledger over the API reconcile with the balance: jobs completed, failed (refunded)
 * and cancelled (refunded after the range's end), on two keys; CSV says the same as JSON.
 */
describe('usage and the ledger over the API', () => {
  let fleet: PooledFleet;
  let user: TestUser;
  let secondKey: { key: string; id: number };
  let ledger: Entry[];
  /** The cancelled job's charge (inside the range) and its refund (the range's end). */
  let cancelled: { charge: Entry; refund: Entry };

  const get = (path: string, key = user.key, headers: Record<string, string> = {}) =>
    api(fleet, 'GET', path, { key, headers });
  const submit = async (path: string, body: object, key = user.key): Promise<string> => {
    const res = await api(fleet, 'POST', path, { key, body });
    expect(res.status).toBe(202);
    return res.body.job_id as string;
  };
  const image = (prompt: string, key?: string) => submit('/api/v1/image/imagegen/generate', { prompt }, key);

  beforeAll(async () => {
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'video:write,image:write,jobs:read', 5000);
    const made = await fleet.admin('key:create', '--email', user.email, '--scopes', 'image:write,jobs:read');
    secondKey = { key: String(made.key), id: Number(made.id) };

    // Failed: a reference image that is not there (refunded by jobs).
    const ref = await startReferenceServer();
    try {
      const failed = await submit('/api/v1/video/vidgen-2/generate', {
        prompt: 'missing ref',
        image_url: `${ref.url}/missing.png`,
        duration_seconds: 4,
        resolution: '480p',
      });
      expect((await waitForJob(fleet, user.key, failed)).status).toBe('failed');
    } finally {
      await ref.close();
    }
    expect(await balanceBecomes(fleet, user.key, 5000)).toBe(5000);
    // Completed, on each key.
    for (const job of [await image('one'), await image('two', secondKey.key)])
      expect((await waitForJob(fleet, user.key, job)).status).toBe('completed');
    // Cancelled while processing: refunded last.
    const long = await submit('/api/v1/video/vidgen-2/generate', {
      prompt: 'long',
      duration_seconds: 15,
      resolution: '480p',
    });
    expect((await api(fleet, 'DELETE', `/api/v1/jobs/${long}`, { key: user.key })).status).toBe(200);
    expect(await balanceBecomes(fleet, user.key, 4900)).toBe(4900);

    ledger = (await get('/api/v1/ledger?limit=100')).body.entries;
    const of = (kind: string) => ledger.find((e) => e.reference === `job:${long}` && e.kind === kind)!;
    cancelled = { charge: of('charge'), refund: of('refund') };
  });

  /** From the ledger's own entries: what charges and refunds moved the balance by in [from, to). */
  const balanceChange = (from: string, to: string) =>
    ledger
      .filter((e) => e.kind !== 'grant' && e.created_at >= from && e.created_at < to)
      .reduce((sum, e) => sum + e.delta, 0);

  it('sums usage by day, model and key that reconciles with the balance, a refund after the range counting after it', async () => {
    const from = ledger[ledger.length - 1].created_at; // the sign-up grant, before every charge
    const to = cancelled.refund.created_at;
    expect(cancelled.charge.created_at < to).toBe(true);
    const q = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;

    const byModelKey = await get(`/api/v1/usage?${q}&group_by=model&group_by=key`);
    expect(byModelKey.status).toBe(200);
    expect(byModelKey.headers.get('cache-control')).toBe('no-store');
    expect(byModelKey.body).toEqual({
      from,
      to,
      group_by: ['model', 'key'],
      rows: [
        { model: 'imagegen-2', api_key_id: user.keyId, ...counts(1, 50, 0) },
        { model: 'imagegen-2', api_key_id: secondKey.id, ...counts(1, 50, 0) },
        // The failed job charged and refunded; the cancelled one charged, its refund after `to`.
        { model: 'vidgen-2.0', api_key_id: user.keyId, ...counts(2, 404 + 1515, 404) },
      ],
      totals: counts(4, 2019, 404),
    });
    expect(-byModelKey.body.totals.credits_net).toBe(balanceChange(from, to));

    // The refund counts in the range that holds the day it was made.
    const after = new Date(Date.parse(to) + 1).toISOString();
    const next = await get(
      `/api/v1/usage?from=${encodeURIComponent(to)}&to=${encodeURIComponent(after)}&group_by=model`,
    );
    expect(next.body.rows).toEqual([{ model: 'vidgen-2.0', ...counts(0, 0, 1515) }]);
    expect(-next.body.totals.credits_net).toBe(balanceChange(to, after));

    const byDay = await get(`/api/v1/usage?from=${from.slice(0, 10)}&to=${nextDay(to)}`);
    expect(byDay.body.group_by).toEqual(['day']);
    const days = new Set(ledger.filter((e) => e.kind !== 'grant').map((e) => e.created_at.slice(0, 10)));
    expect(byDay.body.rows.map((r: Row) => r.day)).toEqual([...days].sort());
    expect(byDay.body.totals).toEqual(counts(4, 2019, 1919));
  });

  it('answers the same rows as CSV with Accept: text/csv or format=csv', async () => {
    const q = `from=${ledger[ledger.length - 1].created_at.slice(0, 10)}&to=${nextDay(cancelled.refund.created_at)}&group_by=day,model,key`;
    const json = (await get(`/api/v1/usage?${q}`)).body;
    const csv = await get(`/api/v1/usage?${q}`, user.key, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.body.split('\r\n')[0]).toBe('day,model,api_key_id,jobs,credits_charged,credits_refunded,credits_net');
    expect(csvRecords(csv.body).map(typed)).toEqual(json.rows);
    expect((await get(`/api/v1/usage?${q}&format=csv`)).body).toBe(csv.body);

    const entries = await get('/api/v1/ledger?format=csv');
    expect(csvRecords(entries.body).map(typed)).toEqual(ledger);
  });

  it('pages the ledger newest first with has_more and created bounds', async () => {
    const pages: Entry[] = [];
    let after: number | undefined;
    for (;;) {
      const page = await get(`/api/v1/ledger?limit=3${after ? `&starting_after=${after}` : ''}`);
      pages.push(...page.body.entries);
      after = page.body.entries[page.body.entries.length - 1]?.id;
      if (!page.body.has_more) break;
      expect(page.body.entries).toHaveLength(3);
    }
    expect(pages).toEqual(ledger);
    expect(ledger.map((e) => e.kind)).toEqual(['refund', 'charge', 'charge', 'charge', 'refund', 'charge', 'grant']);
    const at = cancelled.charge.created_at;
    const bounded = await get(
      `/api/v1/ledger?created[gte]=${encodeURIComponent(at)}&created[lte]=${encodeURIComponent(at)}`,
    );
    expect(bounded.body).toEqual({ entries: [cancelled.charge], has_more: false });
  });

  it.each([
    ['/api/v1/usage?from=yesterday', 'from must be an ISO 8601 date (YYYY-MM-DD, midnight UTC) or timestamp'],
    ['/api/v1/usage?to=2026-02-30T25:00', 'to must be an ISO 8601 date (YYYY-MM-DD, midnight UTC) or timestamp'],
    ['/api/v1/usage?from=2026-03-02&to=2026-03-01', 'to must be after from'],
    ['/api/v1/usage?from=2025-01-01&to=2026-01-03', 'to must be at most 366 days after from'],
    ['/api/v1/usage?group_by=week', 'group_by must be one or more of day, model, key (comma-separated or repeated)'],
    ['/api/v1/usage?format=xlsx', 'format must be json or csv'],
    ['/api/v1/usage?user_id=1', 'unknown query parameter: user_id (accepted: from, to, group_by, format)'],
    ['/api/v1/ledger?limit=0', 'limit must be an integer between 1 and 100'],
    ['/api/v1/ledger?starting_after=abc', 'starting_after must be a ledger entry id (a positive integer)'],
    ['/api/v1/ledger?created[gte]=soon', 'created[gte] must be an ISO 8601 timestamp'],
  ])('refuses %s with a 400 naming the parameter', async (path, error) => {
    expect(await get(path)).toMatchObject({ status: 400, body: { error } });
  });

  it('never shows another user’s usage or ledger, and needs jobs:read', async () => {
    const other = await userWithKey(fleet, 'jobs:read,image:write', 100);
    const theirs = await get('/api/v1/usage?group_by=model,key', other.key);
    expect(theirs.body.rows).toEqual([]);
    expect((await get('/api/v1/ledger', other.key)).body.entries.map((e: Entry) => e.kind)).toEqual(['grant']);
    const writer = await userWithKey(fleet, 'image:write', 100);
    expect((await get('/api/v1/usage', writer.key)).status).toBe(403);
    expect((await get('/api/v1/ledger', writer.key)).status).toBe(403);
  });
});

function counts(jobs: number, charged: number, refunded: number) {
  return { jobs, credits_charged: charged, credits_refunded: refunded, credits_net: charged - refunded };
}

/** The day after an instant's day, YYYY-MM-DD (an exclusive `to` covering that whole day). */
function nextDay(instant: string): string {
  return new Date(Date.parse(instant.slice(0, 10)) + 86_400_000).toISOString().slice(0, 10);
}

/** A CSV record with its numbers as numbers and empty fields as null, to compare with JSON. */
function typed(record: Record<string, string>): Row {
  return Object.fromEntries(
    Object.entries(record).map(([k, v]) => [
      k,
      v === '' ? null : /^-?\d+$/.test(v) && k !== 'reference' ? Number(v) : v,
    ]),
  );
}
