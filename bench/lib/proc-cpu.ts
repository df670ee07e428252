import fs from 'node:fs';
import { Client } from 'pg';

/**
 * CPU time per process over a bench's measured window, from /proc/<pid>/stat (utime + stime, all
 * threads). Linux only; elsewhere every reading is 0. The broker and Postgres are shared with
 * anything else on the machine, so their figures include whatever else used them meanwhile.
 */

const TICK_MS = 10; // USER_HZ is 100 on Linux (getconf CLK_TCK)

/** Milliseconds of CPU used by a process so far (0 when it is gone or /proc is absent). */
export function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime: fields 14 and 15
  } catch {
    return 0;
  }
}

/** Busy milliseconds of the whole machine so far (all cores, from /proc/stat), 0 without /proc. */
export function machineBusyMs(): number {
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = cpu[3] + cpu[4]; // idle, iowait
    return (cpu.slice(0, 8).reduce((a, b) => a + b, 0) - idle) * TICK_MS;
  } catch {
    return 0;
  }
}

/** Pids whose /proc/<pid>/comm is `comm` (beam.smp for RabbitMQ). */
export function pidsByComm(comm: string): number[] {
  const out: number[] = [];
  for (const d of fs.existsSync('/proc') ? fs.readdirSync('/proc') : []) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim() === comm) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Postgres' own background processes (WAL writer, checkpointer, ...), not client backends. */
export function postgresAuxPids(): number[] {
  return pidsByComm('postgres').filter((pid) => {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return /postgres: .*(walwriter|checkpointer|background writer|autovacuum launcher)/.test(cmd);
    } catch {
      return false;
    }
  });
}

/** The server pids of the backends connected to the database of `databaseUrl` (this query's own excluded). */
export async function backendPids(databaseUrl: string): Promise<number[]> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((r) => r.pid);
  } finally {
    await db.end();
  }
}

/** Transactions committed in the database of `databaseUrl` so far (pg_stat_database, flushed about once a second). */
export async function commitsSoFar(databaseUrl: string): Promise<number> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await db.end();
  }
}

/** Named groups of pids; `start()` reads them, the returned `stop()` gives each group's CPU ms since. */
export type PidGroups = Record<string, number[]>;

export function startCpuWindow(groups: PidGroups): () => { byGroup: Record<string, number>; machineMs: number } {
  const read = () => Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, pids.map(cpuMs)]));
  const before = read();
  const machineBefore = machineBusyMs();
  return () => {
    const after = read();
    const byGroup: Record<string, number> = {};
    for (const [k, pids] of Object.entries(after)) byGroup[k] = pids.reduce((s, v, i) => s + v - before[k][i], 0);
    return { byGroup, machineMs: machineBusyMs() - machineBefore };
  };
}

/** One line per group: ms of CPU per request and share of one core, then the machine's total. */
export function describeCpu(
  r: { byGroup: Record<string, number>; machineMs: number },
  requests: number,
  seconds: number,
): string[] {
  const per = (ms: number) => (requests > 0 ? (ms / requests).toFixed(2) : '-');
  const lines = Object.entries(r.byGroup).map(
    ([k, ms]) => `${k.padEnd(34)} ${per(ms).padStart(7)} ms ${((ms / 10 / seconds) | 0).toString().padStart(4)}%`,
  );
  const sum = Object.values(r.byGroup).reduce((a, b) => a + b, 0);
  lines.push(
    `${'sum of the above'.padEnd(34)} ${per(sum).padStart(7)} ms ${((sum / 10 / seconds) | 0).toString().padStart(4)}%`,
  );
  lines.push(
    `${'whole machine (anything running)'.padEnd(34)} ${per(r.machineMs).padStart(7)} ms ${((r.machineMs / 10 / seconds) | 0).toString().padStart(4)}%`,
  );
  return lines;
}
