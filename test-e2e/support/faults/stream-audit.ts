import { openSse, type SseEvent } from '../sse-client';

/**
 * The fault suite's stream client and its auditor: a client that follows a user's
 * GET /api/v1/events/stream through the crashes, resuming with Last-Event-ID whenever its
 * connection drops (a crashed gateway) or it drops it itself, and the check that what it received
 * is exactly that user's event log: the same ids in the same order, none twice, none missing.
 */

const TERMINAL = new Set(['job.completed', 'job.failed', 'job.cancelled']);
/** Resuming "after" this id replays the whole log: the follower's first connection misses nothing. */
const BEFORE_ALL = 'evt_0000000000000000';
const RETRY_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LogEvent {
  id: string;
  type: string;
  job_id: string;
  data: { job_id: string; status: string };
}

export interface StreamFollower {
  readonly received: SseEvent[];
  /** Connections that ended without the client asking (gateway killed or restarted, stream ended). */
  readonly serverDrops: number;
  /** When each of those ended (epoch ms). */
  readonly serverDropTimes: number[];
  /** Connections the client dropped itself (abortAndResume). */
  readonly clientDrops: number;
  /** Opens refused or failed (gateway down, 503 while a service is away): retried. */
  readonly failedOpens: number;
  /**
   * Drops the current connection (once one is open: a follower between connections, after a crash,
   * is waited for, up to `withinMs`); the follower reconnects with the last id it saw. Resolves once
   * dropped, so every call is a client drop.
   */
  abortAndResume: (withinMs?: number) => Promise<void>;
  /** Resolves once the last event received has this id. */
  caughtUpTo: (id: string, timeoutMs: number) => Promise<void>;
  stop: () => Promise<void>;
}

export function followStream(baseUrl: string, key: string): StreamFollower {
  const received: SseEvent[] = [];
  const serverDropTimes: number[] = [];
  let clientDrops = 0;
  let failedOpens = 0;
  let stopped = false;
  let closeCurrent: (() => void) | null = null;
  let aborting = false;
  const lastId = () => received.at(-1)?.id ?? BEFORE_ALL;

  const run = async () => {
    while (!stopped) {
      const stream = await openSse(`${baseUrl}/api/v1/events/stream`, {
        key,
        lastEventId: lastId(),
        timeoutMs: 3_600_000,
      }).catch(() => null);
      if (!stream || stream.status !== 200) {
        failedOpens++;
        await sleep(RETRY_MS);
        continue;
      }
      closeCurrent = stream.close;
      for (let e = await stream.next(); e; e = await stream.next()) received.push(e);
      closeCurrent = null;
      if (stopped) break;
      if (aborting) clientDrops++;
      else serverDropTimes.push(Date.now());
      aborting = false;
    }
  };
  const running = run();

  return {
    received,
    get serverDrops() {
      return serverDropTimes.length;
    },
    serverDropTimes,
    get clientDrops() {
      return clientDrops;
    },
    get failedOpens() {
      return failedOpens;
    },
    abortAndResume: async (withinMs = 30_000) => {
      const until = Date.now() + withinMs;
      while (!closeCurrent) {
        if (stopped) return;
        if (Date.now() > until) throw new Error(`no stream open to drop within ${withinMs} ms`);
        await sleep(50);
      }
      aborting = true;
      closeCurrent();
    },
    caughtUpTo: async (id, timeoutMs) => {
      const until = Date.now() + timeoutMs;
      while (lastId() !== id) {
        if (Date.now() > until) throw new Error(`stream not caught up to ${id} (last seen ${lastId()})`);
        await sleep(100);
      }
    },
    stop: async () => {
      stopped = true;
      closeCurrent?.();
      await running;
    },
  };
}

/** The user's whole event log, oldest first, as GET /api/v1/events pages it. */
export async function readWholeLog(baseUrl: string, key: string): Promise<LogEvent[]> {
  const all: LogEvent[] = [];
  let after: string | null = null;
  do {
    const res = await fetch(`${baseUrl}/api/v1/events?limit=100${after ? `&after=${after}` : ''}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (res.status !== 200) throw new Error(`GET /api/v1/events: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { events: LogEvent[]; next_cursor: string | null };
    all.push(...page.events);
    after = page.next_cursor;
  } while (after);
  return all;
}

export interface StreamAuditInput {
  user: string;
  received: SseEvent[];
  log: LogEvent[];
  /** The user's jobs as the jobs service recorded them (id, status). */
  jobs: Array<{ id: string; status: string }>;
}

/**
 * Exactly once, in order: the stream's ids are the log's ids (no duplicate, no gap, nothing the log
 * does not hold), each event the log's (type, job, data), and every finished job's terminal event
 * arrived once, naming the status the job ended in.
 */
export function auditStream({ user, received, log, jobs }: StreamAuditInput): string[] {
  const v: string[] = [];
  const ids = received.map((e) => e.id ?? '(no id)');
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const [id, n] of counts) if (n > 1) v.push(`user ${user}: stream event ${id} received ${n} times`);
  const inLog = new Map(log.map((e) => [e.id, e]));
  for (const id of counts.keys()) if (!inLog.has(id)) v.push(`user ${user}: stream event ${id} is not in the log`);
  for (const e of log) if (!counts.has(e.id)) v.push(`user ${user}: log event ${e.id} (${e.type}) never streamed`);
  for (let i = 1; i < ids.length; i++)
    if (ids[i] <= ids[i - 1]) v.push(`user ${user}: stream event ${ids[i]} came after ${ids[i - 1]} (out of order)`);
  if (v.length === 0 && ids.join() !== log.map((e) => e.id).join())
    v.push(`user ${user}: the stream's ids differ from the log's`);

  for (const e of received) {
    const l = inLog.get(e.id ?? '');
    if (!l) continue;
    if (e.event !== l.type) v.push(`user ${user}: ${l.id} streamed as ${e.event}, logged as ${l.type}`);
    if (JSON.stringify(JSON.parse(e.data)) !== JSON.stringify(l.data))
      v.push(`user ${user}: ${l.id} streamed with data other than the log's`);
  }

  const terminals = new Map<string, string[]>();
  for (const e of received.filter((x) => TERMINAL.has(x.event))) {
    const jobId = (JSON.parse(e.data) as { job_id: string }).job_id;
    terminals.set(jobId, [...(terminals.get(jobId) ?? []), e.event]);
  }
  for (const j of jobs) {
    const got = terminals.get(j.id) ?? [];
    const ended = ['completed', 'failed', 'cancelled'].includes(j.status);
    if (ended && (got.length !== 1 || got[0] !== `job.${j.status}`))
      v.push(`user ${user}: job ${j.id} ended ${j.status}; its terminal events on the stream: [${got.join(', ')}]`);
    if (!ended && got.length > 0) v.push(`user ${user}: job ${j.id} is ${j.status} yet streamed [${got.join(', ')}]`);
  }
  for (const jobId of terminals.keys())
    if (!jobs.some((j) => j.id === jobId)) v.push(`user ${user}: terminal event for unknown job ${jobId}`);
  return v;
}
