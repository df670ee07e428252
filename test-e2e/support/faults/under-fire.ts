import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { SERVICES, type ServiceName } from '@mf/fleet';
import { startFakeFal, type FakeFal } from '../../../services/jobs/test/support/fake-fal';
import { startFakeReplicate, type FakeReplicate } from '../../../services/jobs/test/support/fake-replicate';
import { startFleet, type Fleet } from '../fleet';
import { startLoad, type Outcome } from './load';
import { auditRun, FAULT_RUN_ENV, jobEndings, violationLines } from './run';
import { usersWithWebhooks } from './users';
import { followStream, type StreamFollower } from './stream-audit';
import { startPrivateBroker, type PrivateBroker } from '../private-broker';
import { combinedCaFile, testTls } from '../tls';
import { startReceiver } from '../webhook-receiver';

/**
 * The fleet under fire: a mixed load of submits, cancels, completions, upstream failures and
 * timeouts runs while, in turn, billing, jobs, the webhook dispatcher and the gateway are killed
 * (SIGKILL) and restarted, and then the broker itself is killed and restarted. Afterwards every
 * promise is audited: no credit lost or invented, no job stuck, no webhook lost or doubled, and
 * each user's event stream, followed through the crashes and resumed with Last-Event-ID after every
 * drop, delivered exactly the user's event log.
 * The broker is a private RabbitMQ node, so its crash touches no other test.
 */

export type Target = ServiceName | 'rabbitmq';
/** Every part the one-route run kills, in turn. */
export const ALL_FAULTS: readonly Target[] = ['billing', 'jobs', 'webhook-dispatcher', 'gateway', 'rabbitmq'];
const LEAD_MS = 3000; // load before the kill
const DOWN_MS = 2000; // how long the part stays dead
const TAIL_MS = 3000; // load after it is back
/** The last user's grant: six kept image charges (50 credits each) spend it. */
const POOR_USER_CREDITS = 300;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function allReady(fleet: Fleet, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (const s of SERVICES) {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${fleet.ports[s.name]}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() > until) throw new Error(`${s.name} not ready again after the broker restart`);
      await sleep(250);
    }
  }
}

function tally(outcomes: Outcome[], phase: string, op: Outcome['op']): string {
  const counts = new Map<string, number>();
  for (const o of outcomes.filter((x) => x.phase === phase && x.op === op))
    counts.set(String(o.status), (counts.get(String(o.status)) ?? 0) + 1);
  return (
    [...counts.entries()]
      .sort()
      .map(([s, n]) => `${s}:${n}`)
      .join(' ') || '-'
  );
}

/**
 * Two configurations, one test file each so that two jest workers run them side by side:
 * PROVIDER=fal (one route, faults/fault-injection.e2e.test.ts), and two routes per model (a
 * Replicate fake that takes, refuses or fails jobs on cue, then the fal fake;
 * faults/fault-injection-routes.e2e.test.ts), so jobs also fall through routes while the parts
 * crash. FAULTS_ROUTES=1 or 2 runs one of them. `faults` are the parts killed in turn.
 */
export function describeUnderFire(label: string, routes: 1 | 2, faults: readonly Target[] = ALL_FAULTS): void {
  const selected = !process.env.FAULTS_ROUTES || String(routes) === process.env.FAULTS_ROUTES;
  (selected ? describe : describe.skip)(`the fleet under fire (${label})`, () => {
    underFire(label, routes, faults);
  });
}

function underFire(_label: string, routes: 1 | 2, faults: readonly Target[]): void {
  let broker: PrivateBroker;
  let fal: FakeFal;
  let rep: FakeReplicate | undefined;
  let fleet: Fleet;
  let db: Client;

  beforeAll(async () => {
    broker = await startPrivateBroker();
    fal = await startFakeFal({ completeAfterPolls: 1, webhookDelayMs: 300 });
    let routing: Record<string, string> = { PROVIDER: 'fal' };
    if (routes === 2) {
      rep = await startFakeReplicate({ completeAfterPolls: 1 });
      const doc = {
        providers: {
          rep: {
            type: 'replicate',
            base_url: rep.url,
            api_key_env: 'REPLICATE_API_TOKEN',
            breaker: { failures: 5, cooldown_ms: 2000 },
          },
          fal: { type: 'fal', base_url: fal.url, api_key_env: 'FAL_KEY' },
        },
        routes: {
          'imagegen-2': [{ provider: 'rep', model: 'acme/image' }, { provider: 'fal' }],
          'vidgen-2.0': [{ provider: 'rep', model: 'acme/video' }, { provider: 'fal' }],
          'vidgen-2.0-fast': [{ provider: 'rep', model: 'acme/video' }, { provider: 'fal' }],
        },
      };
      routing = { PROVIDERS_JSON: JSON.stringify(doc), REPLICATE_API_TOKEN: rep.token };
    }
    fleet = await startFleet({
      AMQP_URL: broker.url,
      ...routing,
      FAL_KEY: fal.apiKey,
      FAL_QUEUE_URL: fal.url,
      NODE_EXTRA_CA_CERTS: combinedCaFile([fal.caPem, ...(rep ? [rep.caPem!] : []), (await testTls()).cert]),
      ...FAULT_RUN_ENV,
    });
    db = new Client({ connectionString: fleet.env.DATABASE_URL });
    await db.connect();
  }, 240_000);

  afterAll(async () => {
    await db?.end();
    await fleet?.shutdown();
    await fal?.close();
    await rep?.close();
    await broker?.close();
  });

  it('loses and invents no credit, leaves no job behind and delivers every webhook once while its parts crash', async () => {
    // Some first attempts are refused by the customer's server, so retries run through the crashes too.
    const refuseFirst = (id: string) => createHash('sha256').update(id).digest()[0] % 8 === 0;
    const receiver = await startReceiver((_n, hook) =>
      hook.headers['x-service-delivery-attempt'] === '1' && refuseFirst(String(hook.headers['x-service-event-id']))
        ? 500
        : 200,
    );
    const followers: StreamFollower[] = [];
    try {
      // Three well-funded users and one who runs out (402s), each with a webhook. Six kept image
      // charges empty the last one's account; refunds of failed and cancelled jobs fill it again.
      const { users, secrets } = await usersWithWebhooks(
        fleet,
        [1_000_000, 1_000_000, 1_000_000, POOR_USER_CREDITS],
        receiver.url,
      );

      // One stream client per user, following /api/v1/events/stream through every crash.
      followers.push(...users.map((u) => followStream(fleet.baseUrl, u.key)));
      const seed = Number(process.env.FAULTS_SEED ?? Date.now() % 100_000);
      const load = startLoad({
        baseUrl: fleet.baseUrl,
        users: users.map((u) => ({ key: u.key, userId: u.userId })),
        clients: 6,
        pauseMs: 200,
        requestTimeoutMs: 15_000,
        seed,
        twoRoutes: routes === 2,
      });
      const timeline: string[] = [];
      let brokerKilledAt = Infinity;
      const t0 = Date.now();
      const at = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
      await sleep(LEAD_MS);

      for (const target of faults) {
        const phase = target === 'rabbitmq' ? 'RabbitMQ killed + restarted' : `${target} killed + restarted`;
        load.setPhase(phase);
        await sleep(LEAD_MS);
        if (target === 'rabbitmq') {
          timeline.push(`${at()} SIGKILL RabbitMQ`);
          brokerKilledAt = Date.now();
          await broker.kill();
          await sleep(DOWN_MS);
          await broker.start();
          await allReady(fleet);
        } else {
          timeline.push(`${at()} SIGKILL ${target}`);
          const code = await fleet.stopService(target, 'SIGKILL');
          expect(code).toBe('SIGKILL');
          // Clients drop their streams while the part is down (the gateway's crash drops them by itself).
          if (target !== 'gateway') await Promise.all(followers.map((f) => f.abortAndResume()));
          await sleep(DOWN_MS);
          await fleet.startService(target);
        }
        timeline.push(`${at()} ${target} back`);
        await sleep(TAIL_MS / 2);
        await Promise.all(followers.map((f) => f.abortAndResume())); // and once more, with events flowing
        await sleep(TAIL_MS / 2);
      }
      load.setPhase('after');
      // How many submits the run takes to show a 402 (the poor account empty) and an accepted job
      // bound to time out (5% of the mix) depends on the machine's pace and on the refunds: the load
      // goes on until it has both (the checks below fail if it never does).
      const shown = () =>
        load.outcomes.some((o) => o.status === 402) &&
        load.outcomes.some((o) => o.scenario === 'time-out' && o.status === 202);
      const deadline = Date.now() + 60_000;
      while (!shown() && Date.now() < deadline) await sleep(250);
      await load.stop();
      timeline.push(`${at()} load stopped`);

      // Everything settles (every job terminal, every refund paid, every event relayed and delivered),
      // then every stream catches up with its user's log and must match it event for event.
      const run = await auditRun(db, fleet, { users, secrets }, followers, load, receiver.received);
      const { snap, violations, logs, jobsOf } = run;
      timeline.push(`${((run.settledAt - t0) / 1000).toFixed(1)}s settled`);
      const streamLines: string[] = [];
      for (const [i, u] of users.entries()) {
        const f = followers[i];
        if (f.serverDrops < 1) violations.push(`user ${u.userId}: the stream was never dropped by a crash`);
        // Its gateway missed what was published while it was away from the broker: it must have
        // ended the stream once subscribed again (the client resumes from the log), not gone on.
        if (!f.serverDropTimes.some((t) => t > brokerKilledAt))
          violations.push(`user ${u.userId}: the stream went on through the gateway's broker reconnect`);
        if (f.clientDrops < faults.length)
          violations.push(`user ${u.userId}: the client resumed only ${f.clientDrops} times`);
        streamLines.push(
          `  user ${u.userId}: ${f.received.length} events of ${logs[i].length} logged (${jobsOf[i].length} jobs); dropped by the server ${f.serverDrops}, by the client ${f.clientDrops}; failed opens ${f.failedOpens}`,
        );
      }

      const phases = [...new Set(load.outcomes.map((o) => o.phase))];
      console.log(
        [
          `fault injection, ${_label} (seed ${seed}; FAULTS_SEED=${seed} FAULTS_ROUTES=${routes} repeats the mix)`,
          ...timeline.map((l) => `  ${l}`),
          'requests per phase (status:count):',
          ...phases.map(
            (p) =>
              `  ${p.padEnd(38)} submits ${tally(load.outcomes, p, 'submit')} | cancels ${tally(load.outcomes, p, 'cancel')}`,
          ),
          `jobs: ${snap.jobs.length} (${jobEndings(snap)}; ${snap.jobs.filter((j) => j.error === 'Generation timed out').length} of the failed timed out); webhook copies received: ${receiver.received.length}`,
          'checked:',
          ...run.checked.map((c) => `  ${c}`),
          "  event streams: each resumed with Last-Event-ID after every drop; ids = the log's, in order, each once; each ended job's terminal event once",
          ...streamLines,
          violationLines(violations),
        ].join('\n'),
      );

      // The run exercised what it claims to: every kind of ending, under every fault.
      const statuses = new Set(snap.jobs.map((j) => j.status));
      for (const s of ['completed', 'failed', 'cancelled', 'rejected']) expect(statuses).toContain(s);
      for (const p of phases.filter((x) => x.includes('killed')))
        expect(load.outcomes.filter((o) => o.phase === p && o.status === 202).length).toBeGreaterThan(0);
      expect(load.outcomes.some((o) => o.status === 402)).toBe(true);
      expect(snap.jobs.some((j) => j.status === 'failed' && j.error === 'Generation timed out')).toBe(true);
      expect(violations).toEqual([]);
    } finally {
      await Promise.all(followers.map((f) => f.stop()));
      await receiver.close();
    }
  }, 600_000);
}
