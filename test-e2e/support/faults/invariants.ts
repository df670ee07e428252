import type { Client } from 'pg';
import type { ReceivedWebhook } from '../webhook-receiver';
import { verifySignature } from '../webhook-receiver';
import type { Outcome } from './load';

/**
 * The promises the fleet makes about money, jobs and webhooks, checked from what each service
 * recorded (read-only, straight from the test database: the test is the auditor, not a service)
 * and from what the clients and the webhook receiver saw.
 */

interface JobRow {
  id: string;
  user_id: string;
  status: string;
  cost: number;
  refund_state: string;
  error: string | null;
  prompt: string;
  deadline_at: Date;
  created_at: Date;
}
interface LedgerRow {
  user_id: string;
  kind: 'charge' | 'refund' | 'grant';
  reference: string;
  amount: string;
}
interface OutboxRow {
  /** The event log's id (evt_...), which webhooks carry as X-Service-Event-Id. */
  event_id: string;
  routing_key: string;
  job_id: string;
  published: boolean;
}
interface DeliveryRow {
  event_id: string;
  job_id: string;
  attempt: number;
  status_code: number | null;
}

const TERMINAL_VISIBLE = new Set(['completed', 'failed', 'cancelled']);

export interface Snapshot {
  jobs: JobRow[];
  ledger: LedgerRow[];
  balances: Map<string, number>;
  outbox: OutboxRow[];
  deliveries: DeliveryRow[];
  endpointUsers: Set<string>;
}

export async function snapshot(db: Client): Promise<Snapshot> {
  const jobs = (
    await db.query<JobRow>(
      "SELECT id, user_id, status, cost, refund_state, error, params->>'prompt' AS prompt, deadline_at, created_at FROM jobs.jobs",
    )
  ).rows;
  const ledger = (await db.query<LedgerRow>('SELECT user_id, kind, reference, amount FROM billing.ledger')).rows;
  const balances = new Map(
    (await db.query<{ user_id: string; credits: string }>('SELECT user_id, credits FROM billing.balances')).rows.map(
      (r) => [String(r.user_id), Number(r.credits)],
    ),
  );
  const outbox = (
    await db.query<OutboxRow>(
      // The webhook events: job.processing and job.progress are in the log too, for streams only.
      "SELECT 'evt_' || lpad(id::text, 16, '0') AS event_id, routing_key, payload->>'job_id' AS job_id, published_at IS NOT NULL AS published FROM jobs.outbox WHERE routing_key IN ('job.completed', 'job.failed', 'job.cancelled')",
    )
  ).rows;
  const deliveries = (
    await db.query<DeliveryRow>('SELECT event_id, job_id, attempt, status_code FROM webhooks.deliveries ORDER BY id')
  ).rows;
  const endpointUsers = new Set(
    (await db.query<{ user_id: string }>('SELECT user_id FROM webhooks.endpoints')).rows.map((r) => String(r.user_id)),
  );
  return { jobs, ledger, balances, outbox, deliveries, endpointUsers };
}

/** What is still moving: jobs not terminal, refunds owed, events not relayed or not delivered. */
export function outstanding(s: Snapshot): string[] {
  const open: string[] = [];
  const moving = s.jobs.filter((j) => j.status === 'submitting' || j.status === 'processing');
  if (moving.length) open.push(`${moving.length} jobs submitting/processing`);
  const owed = s.jobs.filter((j) => j.refund_state === 'pending');
  if (owed.length) open.push(`${owed.length} refunds owed`);
  const unpublished = s.outbox.filter((o) => !o.published);
  if (unpublished.length) open.push(`${unpublished.length} outbox events not relayed`);
  const delivered = new Set(s.deliveries.filter((d) => isSuccess(d.status_code)).map((d) => d.event_id));
  const undelivered = s.outbox.filter((o) => !delivered.has(o.event_id) && s.endpointUsers.has(userOfJob(s, o.job_id)));
  if (undelivered.length) open.push(`${undelivered.length} events not yet delivered`);
  return open;
}

/** Jobs past their deadline (or a submit past its stuck limit) that are still not terminal. */
export function overdue(s: Snapshot, now: number, graceMs: number, submitStuckMs: number): string[] {
  return s.jobs
    .filter(
      (j) =>
        (j.status === 'processing' && now > j.deadline_at.getTime() + graceMs) ||
        (j.status === 'submitting' && now > j.created_at.getTime() + submitStuckMs + graceMs),
    )
    .map((j) => `job ${j.id} is still ${j.status} past its timeout`);
}

function isSuccess(code: number | null): boolean {
  return code !== null && code >= 200 && code <= 299;
}

function userOfJob(s: Snapshot, jobId: string): string {
  return String(s.jobs.find((j) => j.id === jobId)?.user_id ?? '');
}

export interface Audit {
  /** One line per invariant: what it covers and how many records it looked at. */
  checked: string[];
  violations: string[];
}

export interface AuditInput {
  snap: Snapshot;
  outcomes: Outcome[];
  received: ReceivedWebhook[];
  secrets: Map<string, string>; // user id -> webhook signing secret
  /** The API's balance per user id, as GET /account answers it. */
  apiBalances: Map<string, number>;
  /** Most duplicate copies the receiver may see: a dispatcher killed between a 2xx and recording it redelivers. */
  maxRedeliveredCopies: number;
}

export function audit({ snap, outcomes, received, secrets, apiBalances, maxRedeliveredCopies }: AuditInput): Audit {
  const checked: string[] = [];
  const violations: string[] = [];
  const jobs = new Map(snap.jobs.map((j) => [j.id, j]));
  const byRef = new Map<string, LedgerRow[]>();
  for (const row of snap.ledger) byRef.set(row.reference, [...(byRef.get(row.reference) ?? []), row]);

  // 1. Every charge has exactly one outcome: kept for a completed job, refunded (in full) otherwise.
  let charges = 0;
  let kept = 0;
  let refunded = 0;
  for (const [ref, rows] of byRef) {
    const charge = rows.find((r) => r.kind === 'charge');
    const refund = rows.find((r) => r.kind === 'refund');
    if (!charge) {
      if (refund && Number(refund.amount) !== 0)
        violations.push(`${ref}: refund of ${refund.amount} without a charge (credits invented)`);
      continue;
    }
    charges++;
    const job = jobs.get(ref.replace(/^job:/, ''));
    const shouldKeep = job?.status === 'completed';
    if (shouldKeep) {
      kept++;
      if (refund) violations.push(`${ref}: completed job was refunded`);
      if (Number(charge.amount) !== job.cost)
        violations.push(`${ref}: charged ${charge.amount}, job costs ${job.cost}`);
    } else {
      refunded++;
      if (!refund)
        violations.push(`${ref}: charge kept for a job that is ${job?.status ?? 'missing (never submitted)'}`);
      else if (refund.amount !== charge.amount)
        violations.push(`${ref}: charged ${charge.amount} but refunded ${refund.amount}`);
    }
  }
  for (const job of snap.jobs) {
    if (TERMINAL_VISIBLE.has(job.status) && !byRef.get(`job:${job.id}`)?.some((r) => r.kind === 'charge'))
      violations.push(`job ${job.id} (${job.status}) has no charge`);
    if (!TERMINAL_VISIBLE.has(job.status) && job.status !== 'rejected')
      violations.push(`job ${job.id} ended ${job.status}, not terminal`);
  }
  checked.push(
    `ledger: ${charges} charges, each with one outcome (${kept} kept for completed jobs, ${refunded} refunded in full); ${snap.jobs.length} jobs all terminal`,
  );

  // 2. Each user's balance = grants - kept charges (and the API says the same).
  const users = new Set(snap.ledger.map((r) => String(r.user_id)));
  for (const user of users) {
    const rows = snap.ledger.filter((r) => String(r.user_id) === user);
    const grants = rows.filter((r) => r.kind === 'grant').reduce((s, r) => s + Number(r.amount), 0);
    const keptCharges = snap.jobs
      .filter((j) => String(j.user_id) === user && j.status === 'completed')
      .reduce((s, j) => s + j.cost, 0);
    const stored = snap.balances.get(user);
    if (stored !== grants - keptCharges)
      violations.push(
        `user ${user}: balance ${stored}, expected grants ${grants} - kept ${keptCharges} = ${grants - keptCharges}`,
      );
    const shown = apiBalances.get(user);
    if (shown !== undefined && shown !== stored)
      violations.push(`user ${user}: GET /account says ${shown}, ledger says ${stored}`);
  }
  checked.push(`balances: ${users.size} users, each = grants - kept charges, and GET /account agrees`);

  // 3. What clients were told holds: a 202 is a real job that ended, a 402 charged nothing, a cancel's 200 is a cancelled, refunded job.
  let accepted = 0;
  for (const o of outcomes) {
    if (o.op === 'submit' && o.status === 202) {
      accepted++;
      const job = o.jobId ? jobs.get(o.jobId) : undefined;
      if (!job || !TERMINAL_VISIBLE.has(job.status))
        violations.push(`202 for ${o.jobId} but the job is ${job?.status ?? 'missing'}`);
    }
    if (o.op === 'cancel' && o.status === 200) {
      const job = jobs.get(o.jobId!);
      if (job?.status !== 'cancelled')
        violations.push(`cancel of ${o.jobId} answered 200 but the job is ${job?.status}`);
    }
  }
  checked.push(`clients: ${accepted} accepted submits all ended visibly; every 200 cancel is a cancelled job`);

  // 3b. A submit retried with its Idempotency-Key (after a 503 or no answer) made at most one job
  //     that was not rejected (a rejected one is refunded, and then the retry submits afresh).
  const byPrompt = new Map<string, JobRow[]>();
  for (const j of snap.jobs) byPrompt.set(j.prompt, [...(byPrompt.get(j.prompt) ?? []), j]);
  for (const [prompt, js] of byPrompt) {
    const live = js.filter((j) => j.status !== 'rejected');
    if (live.length > 1) violations.push(`"${prompt}" made ${live.length} jobs (${live.map((j) => j.id).join(', ')})`);
  }
  const retriedSubmits = outcomes.filter((o) => o.op === 'submit' && o.attempts > 1);
  const answeredAfterRetry = retriedSubmits.filter((o) => o.status === 202).length;
  checked.push(
    `idempotency: ${retriedSubmits.length} submits retried with their Idempotency-Key (${answeredAfterRetry} then accepted); every request made at most one live job`,
  );

  // 4. Webhooks: one event per terminal job, exactly one delivered attempt per event (the last of
  //    its series), the receiver got it signed and right; duplicates only from a dispatcher crash.
  const eventsByJob = new Map<string, OutboxRow[]>();
  for (const o of snap.outbox) eventsByJob.set(o.job_id, [...(eventsByJob.get(o.job_id) ?? []), o]);
  const copies = new Map<string, ReceivedWebhook[]>();
  for (const r of received) {
    const id = String(r.headers['x-service-event-id']);
    copies.set(id, [...(copies.get(id) ?? []), r]);
  }
  let events = 0;
  let retried = 0;
  for (const job of snap.jobs.filter((j) => TERMINAL_VISIBLE.has(j.status))) {
    const evs = eventsByJob.get(job.id) ?? [];
    if (evs.length !== 1) {
      violations.push(`job ${job.id} (${job.status}) has ${evs.length} events`);
      continue;
    }
    const ev = evs[0];
    if (ev.routing_key !== `job.${job.status}`)
      violations.push(`job ${job.id} is ${job.status} but its event is ${ev.routing_key}`);
    if (!snap.endpointUsers.has(String(job.user_id))) continue;
    events++;
    const series = snap.deliveries.filter((d) => d.event_id === ev.event_id);
    const ok = series.filter((d) => isSuccess(d.status_code));
    if (ok.length !== 1) violations.push(`event ${ev.event_id} (${job.id}) has ${ok.length} delivered attempts`);
    else if (ok[0].attempt !== Math.max(...series.map((d) => d.attempt)))
      violations.push(`event ${ev.event_id} was attempted again after it was delivered`);
    if (series.some((d) => d.attempt > 1)) retried++;
    const got = copies.get(ev.event_id) ?? [];
    const delivered = got.find(
      (r) => r.headers['x-service-event'] === ev.routing_key && JSON.parse(r.rawBody).status === job.status,
    );
    if (!delivered) violations.push(`event ${ev.event_id} (${job.id}, ${ev.routing_key}) never reached the receiver`);
    const secret = secrets.get(String(job.user_id));
    if (
      delivered &&
      secret &&
      !verifySignature(secret, String(delivered.headers['x-service-signature']), delivered.rawBody, 3600)
    )
      violations.push(`event ${ev.event_id}: bad signature`);
  }
  const known = new Set(snap.outbox.map((o) => o.event_id));
  const strangers = [...copies.keys()].filter((id) => !known.has(id));
  if (strangers.length) violations.push(`receiver got ${strangers.length} events the outbox never wrote`);
  // Attempts the receiver answered with an error are retried with the same id: count 2xx'd copies only.
  const duplicateCopies = [...copies.values()].reduce(
    (s, got) => s + Math.max(0, got.filter((r) => r.answeredWith === 200).length - 1),
    0,
  );
  if (duplicateCopies > maxRedeliveredCopies)
    violations.push(
      `receiver accepted ${duplicateCopies} duplicate copies (at most ${maxRedeliveredCopies} expected from dispatcher crashes)`,
    );
  checked.push(
    `webhooks: ${events} terminal events, each delivered exactly once in its attempt series (${retried} needed retries), signed, none lost; ${duplicateCopies} redelivered copies (bound ${maxRedeliveredCopies})`,
  );

  return { checked, violations };
}
