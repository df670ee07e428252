import fs from 'node:fs';
import path from 'node:path';
import { Client, escapeIdentifier } from 'pg';
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

export interface Snapshot {
  tables: Record<string, string>;
  files: string[];
}

export class SideEffects {
  private db: Client | undefined;
  private tables: string[] = [];

  constructor(private readonly fleet: Fleet) {}

  async open(): Promise<void> {
    this.db = new Client({ connectionString: this.fleet.env.DATABASE_URL });
    await this.db.connect();
  }

  async close(): Promise<void> {
    await this.db?.end();
  }

  private async listTables(): Promise<string[]> {
    const { rows } = await this.db!.query<{ name: string; table_name: string }>(
      `SELECT table_schema || '.' || table_name AS name, table_name FROM information_schema.tables
       WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' ORDER BY 1`,
      [SCHEMAS],
    );
    return rows.filter((r) => !BOOKKEEPING.test(r.table_name)).map((r) => r.name);
  }

  async snapshot(): Promise<Snapshot> {
    // Listed each time: a table another change adds (idempotency keys, say) is covered at once.
    this.tables = await this.listTables();
    const tables: Record<string, string> = {};
    for (const t of this.tables) {
      const [schema, table] = t.split('.');
      const { rows } = await this.db!.query<{ state: string }>(
        COUNTED_ONLY.has(t)
          ? `SELECT count(*)::text AS state FROM ${escapeIdentifier(schema)}.${escapeIdentifier(table)}`
          : `SELECT count(*)::text || ':' || coalesce(md5(string_agg(x::text, ',' ORDER BY x::text)), '') AS state FROM ${escapeIdentifier(schema)}.${escapeIdentifier(table)} x`,
      );
      tables[t] = rows[0].state;
    }
    return { tables, files: listFiles(String(this.fleet.env.STORAGE_DIR)) };
  }

  /** The tables and files that differ from `before` (empty when nothing was stored or changed). */
  async changesSince(before: Snapshot): Promise<string[]> {
    const now = await this.snapshot();
    const changed = Object.keys({ ...before.tables, ...now.tables }).filter((t) => before.tables[t] !== now.tables[t]);
    const added = now.files.filter((f) => !before.files.includes(f)).map((f) => `file ${f}`);
    const removed = before.files.filter((f) => !now.files.includes(f)).map((f) => `file removed ${f}`);
    return [...changed, ...added, ...removed];
  }

  /** Runs one query (for checks of stored values). */
  async query<R extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.db!.query<R>(sql, params)).rows;
  }
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

/** In the enclosing describe: every test must leave the databases and media storage as they were. */
export function expectEachTestLeavesNothingBehind(state: () => SideEffects): void {
  let before: Snapshot;
  beforeEach(async () => {
    before = await state().snapshot();
  });
  afterEach(async () => {
    expect(await state().changesSince(before)).toEqual([]);
  });
}
