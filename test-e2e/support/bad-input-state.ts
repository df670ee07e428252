import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { api, startFleet, userWithKey, type Fleet, type TestUser } from './fleet';

/**
 * Proof that a refused request left nothing behind: every table of every service's schema (row
 * counts, and a digest of the rows of those a request could change), the billing ledger, and the
 * files of media storage. Tables that every request touches by design are left out: usage records,
 * rate-limit counters, the last-used time of keys and sessions.
 */

const SCHEMAS = ['gateway', 'billing', 'jobs', 'editor', 'exports', 'webhooks'];
/** Written by any request at all, refused or not. */
const BOOKKEEPING = /^(knex_migrations.*|usage|.*rate_?limit.*)$/;
/** Rows that change in place on an accepted request (last_used_at, last_seen_at): counted, not digested. */
const COUNTED_ONLY = new Set(['gateway.api_keys', 'gateway.sessions']);
/** Every other table's state: its row count and a digest of its rows (format's %I fills in the name). */
const DIGEST =
  "SELECT count(*)::text || ':' || coalesce(md5(string_agg(x::text, ',' ORDER BY x::text)), '') AS state FROM %I.%I x";

export interface Snapshot {
  tables: Record<string, string>;
  files: string[];
}

export class SideEffects {
  private db: Client | undefined;

  constructor(private readonly fleet: Fleet) {}

  async open(): Promise<void> {
    this.db = new Client({ connectionString: this.fleet.env.DATABASE_URL });
    await this.db.connect();
  }

  async close(): Promise<void> {
    await this.db?.end();
  }

  async snapshot(): Promise<Snapshot> {
    // One statement: the tables are listed each time (a table another change adds, idempotency keys
    // say, is covered at once) and each one's state is read by a query Postgres builds from its name
    // (format's %I quotes it) and runs through query_to_xml: one round trip, not one per table.
    const { rows } = await this.db!.query<{ name: string; state: string }>(
      `SELECT name, (xpath('/row/state/text()', query_to_xml(format(
                CASE WHEN name = ANY($3) THEN 'SELECT count(*)::text AS state FROM %I.%I'
                ELSE $4 END, nspname, relname), false, true, '')))[1]::text AS state
         FROM (SELECT n.nspname, c.relname, n.nspname || '.' || c.relname AS name
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                  AND c.relname !~ $2) t
        ORDER BY name`,
      [SCHEMAS, BOOKKEEPING.source, [...COUNTED_ONLY], DIGEST],
    );
    const tables: Record<string, string> = {};
    for (const r of rows) tables[r.name] = r.state;
    return { tables, files: listFiles(String(this.fleet.env.STORAGE_DIR)) };
  }

  /** The tables and files that differ from `before` (empty when nothing was stored or changed). */
  async changesSince(before: Snapshot): Promise<string[]> {
    return changesBetween(before, await this.snapshot());
  }

  /** Runs one query (for checks of stored values). */
  async query<R extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.db!.query<R>(sql, params)).rows;
  }
}

function changesBetween(before: Snapshot, now: Snapshot): string[] {
  const changed = Object.keys({ ...before.tables, ...now.tables }).filter((t) => before.tables[t] !== now.tables[t]);
  const added = now.files.filter((f) => !before.files.includes(f)).map((f) => `file ${f}`);
  const removed = before.files.filter((f) => !now.files.includes(f)).map((f) => `file removed ${f}`);
  return [...changed, ...added, ...removed];
}

function listFiles(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  const out: string[] = [];
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop()!;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else out.push(path.relative(root, full));
    }
  }
  return out.sort();
}

/** Where each service log ends now, to read only what a test run adds to it. */
export function logOffsets(fleet: Fleet): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of fs.readdirSync(fleet.logDir)) out[f] = fs.statSync(path.join(fleet.logDir, f)).size;
  return out;
}

/** Log lines at level error (50) or fatal (60) written since `offsets`, file by file. */
export function errorLogLinesSince(fleet: Fleet, offsets: Record<string, number>): string[] {
  const lines: string[] = [];
  for (const f of fs.readdirSync(fleet.logDir)) {
    const text = fs
      .readFileSync(path.join(fleet.logDir, f))
      .subarray(offsets[f] ?? 0)
      .toString('utf8');
    for (const line of text.split('\n')) if (/"level":(50|60)\b/.test(line)) lines.push(`${f}: ${line.slice(0, 500)}`);
  }
  return lines;
}

/** A fleet to attack: a user with credits, and a real project and video a wrongly accepted request would change. */
export interface Target {
  fleet: Fleet;
  user: TestUser;
  state: SideEffects;
  projectId: string;
  videoId: string;
}

export async function startTarget(credits: number): Promise<Target> {
  const fleet = await startFleet({ RATE_LIMIT_PER_MINUTE: '100000' });
  const user = await userWithKey(fleet, 'all', credits);
  const state = new SideEffects(fleet);
  await state.open();
  const projectId = (
    await api(fleet, 'POST', '/api/v1/media-studio/projects', { key: user.key, body: { name: 'target' } })
  ).body.project.id as string;
  const videoId = (await api(fleet, 'GET', `/api/v1/media-studio/projects/${projectId}`, { key: user.key })).body
    .videos[0].id as string;
  return { fleet, user, state, projectId, videoId };
}

export async function stopTarget(target: Target | undefined): Promise<void> {
  await target?.state.close();
  await target?.fleet.shutdown();
}

/**
 * In the enclosing describe: every test must leave the databases and media storage as they were.
 * The state after a test that changed nothing is the state before the next one, so it is read once
 * between two tests, not twice; setup that stores something (a nested describe's beforeAll) would
 * count as the next test's change, so it belongs outside this describe.
 */
export function expectEachTestLeavesNothingBehind(state: () => SideEffects): void {
  let before: Snapshot | undefined;
  beforeEach(async () => {
    before ??= await state().snapshot();
  });
  afterEach(async () => {
    const now = await state().snapshot();
    const changes = changesBetween(before!, now);
    before = changes.length === 0 ? now : undefined;
    expect(changes).toEqual([]);
  });
}
