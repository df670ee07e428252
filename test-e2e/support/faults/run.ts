import type { Client } from 'pg';
import type { Fleet, TestUser } from '../fleet';
import type { ReceivedWebhook } from '../webhook-receiver';
import { audit, type Snapshot } from './invariants';
import type { Load } from './load';
import { apiBalances, catchUpStreams, settle } from './settle';
import { auditStream, type LogEvent, type StreamFollower } from './stream-audit';
import { LOOPBACK_DELIVERY } from '../webhook-receiver';

/**
 * What a fault run (the fleet under fire, the cluster that loses a node) shares: the fleet's
 * timeouts and webhook settings, and the audit after the load has stopped.
 */

export const JOB_TIMEOUT_MS = 15_000;
export const SUBMIT_STUCK_AFTER_MS = 15_000;
/** Webhook attempts a dispatcher makes at once: a SIGKILL can leave at most this many unrecorded. */
export const WEBHOOK_MAX_IN_FLIGHT = 5;
/** Slack for "past its timeout": the poller and sweeper run every 200-500 ms, but a restart takes seconds. */
const OVERDUE_GRACE_MS = 20_000;

/** The fleet's settings for a fault run, beside its broker and provider settings. */
export const FAULT_RUN_ENV: Readonly<Record<string, string>> = {
  ALLOW_PRIVATE_URLS: 'true',
  PROVIDER_HTTP_TIMEOUT_MS: '5000',
  JOB_TIMEOUT_MS: String(JOB_TIMEOUT_MS),
  SUBMIT_STUCK_AFTER_MS: String(SUBMIT_STUCK_AFTER_MS),
  SUBMIT_TIMEOUT_MS: '10000',
  RATE_LIMIT_PER_MINUTE: '1000000',
  ...LOOPBACK_DELIVERY,
  WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_MAX_IN_FLIGHT: String(WEBHOOK_MAX_IN_FLIGHT),
  // Back on the broker soon after it is (production backs off up to a minute): what is audited is
  // what the fleet does through the outage, not how long it waits to try again.
  AMQP_RECONNECT_MAX_MS: '2000',
};

export interface RunAudit {
  snap: Snapshot;
  /** When everything had settled (Date.now()). */
  settledAt: number;
  /** Every broken promise: unsettled or overdue jobs, the ledger's, the webhooks', each stream's. */
  violations: string[];
  /** What the ledger and webhook audit checked, a line each. */
  checked: string[];
  /** Each user's whole event log, in the users' order. */
  logs: LogEvent[][];
  /** Each user's jobs in the final snapshot, in the users' order. */
  jobsOf: Snapshot['jobs'][];
}

/**
 * After the load has stopped: waits until everything settles, audits credits, jobs and webhooks,
 * lets each stream catch up with its user's log and holds it to that log.
 */
export async function auditRun(
  db: Client,
  fleet: Fleet,
  { users, secrets }: { users: TestUser[]; secrets: Map<string, string> },
  followers: StreamFollower[],
  load: Load,
  received: ReceivedWebhook[],
): Promise<RunAudit> {
  const { snap, violations } = await settle(db, {
    settleWithinMs: JOB_TIMEOUT_MS + 90_000,
    overdueGraceMs: OVERDUE_GRACE_MS,
    submitStuckAfterMs: SUBMIT_STUCK_AFTER_MS,
  });
  const settledAt = Date.now();
  const result = audit({
    snap,
    outcomes: load.outcomes,
    received,
    secrets,
    apiBalances: await apiBalances(fleet, users),
    maxRedeliveredCopies: WEBHOOK_MAX_IN_FLIGHT,
  });
  violations.push(...result.violations);
  const logs = await catchUpStreams(fleet, users, followers, violations);
  const jobsOf = users.map((u) => snap.jobs.filter((j) => String(j.user_id) === String(u.userId)));
  users.forEach((u, i) =>
    violations.push(
      ...auditStream({ user: String(u.userId), received: followers[i].received, log: logs[i], jobs: jobsOf[i] }),
    ),
  );
  return { snap, settledAt, violations, checked: result.checked, logs, jobsOf };
}

/** One line: how each job ended. */
export function jobEndings(snap: Snapshot): string {
  return ['completed', 'failed', 'cancelled', 'rejected']
    .map((s) => `${s} ${snap.jobs.filter((j) => j.status === s).length}`)
    .join(', ');
}

/** The tail of a run's report: its violations, or that there were none. */
export function violationLines(violations: string[]): string {
  return violations.length
    ? `VIOLATIONS (${violations.length}):\n  ${violations.slice(0, 50).join('\n  ')}`
    : 'no violations';
}
