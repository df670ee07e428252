import type { Client } from 'pg';
import { api, type Fleet, type TestUser } from '../fleet';
import { outstanding, overdue, snapshot, type Snapshot } from './invariants';
import { readWholeLog, type LogEvent, type StreamFollower } from './stream-audit';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until nothing moves any more (every job terminal, every refund paid, every event relayed
 * and delivered), noting each job seen past its timeout; then, a moment later (when a late
 * duplicate would arrive), the final snapshot. Not settled by `settleWithinMs`: a violation too.
 */
export async function settle(
  db: Client,
  opts: { settleWithinMs: number; overdueGraceMs: number; submitStuckAfterMs: number },
): Promise<{ snap: Snapshot; violations: string[] }> {
  const violations: string[] = [];
  const settleBy = Date.now() + opts.settleWithinMs;
  let snap = await snapshot(db);
  for (;;) {
    for (const late of overdue(snap, Date.now(), opts.overdueGraceMs, opts.submitStuckAfterMs))
      if (!violations.includes(late)) violations.push(late);
    const open = outstanding(snap);
    if (open.length === 0) break;
    if (Date.now() > settleBy) {
      violations.push(`not settled: ${open.join(', ')}`);
      break;
    }
    await sleep(500);
    snap = await snapshot(db);
  }
  await sleep(1000);
  return { snap: await snapshot(db), violations };
}

/** Each user's balance as GET /api/v1/account answers it, by user id. */
export async function apiBalances(fleet: Fleet, users: TestUser[]): Promise<Map<string, number>> {
  const balances = new Map<string, number>();
  for (const u of users)
    balances.set(String(u.userId), (await api(fleet, 'GET', '/api/v1/account', { key: u.key })).body.credits_remaining);
  return balances;
}

/**
 * Reads each user's whole event log, lets each stream catch up with it (a stream that does not is
 * a violation), then stops the streams once a duplicate would have arrived. Resolves the logs.
 */
export async function catchUpStreams(
  fleet: Fleet,
  users: TestUser[],
  followers: StreamFollower[],
  violations: string[],
): Promise<LogEvent[][]> {
  const logs = await Promise.all(users.map((u) => readWholeLog(fleet.baseUrl, u.key)));
  await Promise.all(
    followers.map((f, i) =>
      f.caughtUpTo(logs[i].at(-1)?.id ?? 'evt_0000000000000000', 30_000).catch((err: Error) => {
        violations.push(`user ${users[i].userId}: ${err.message}`);
      }),
    ),
  );
  await sleep(500);
  await Promise.all(followers.map((f) => f.stop()));
  return logs;
}
