import { Client } from 'pg';
import { SERVICES } from '@mf/fleet';
import { freePort } from '@mf/testing';
import { startFakeFal, type FakeFal } from '../../services/jobs/test/support/fake-fal';
import { startFleet, type Fleet } from '../support/fleet';
import { startLoad } from '../support/faults/load';
import { auditRun, FAULT_RUN_ENV, jobEndings, violationLines } from '../support/faults/run';
import { usersWithWebhooks } from '../support/faults/users';
import { followStream, type StreamFollower } from '../support/faults/stream-audit';
import { startRabbitCluster, type ClusterNode, type RabbitCluster } from '../support/rabbit-cluster';
import { combinedCaFile, testTls } from '../support/tls';
import { startReceiver } from '../support/webhook-receiver';

/**
 * npm run test:cluster: the fleet on a three-node RabbitMQ cluster (quorum queues, AMQP_URL listing
 * the three nodes) loses, mid-burst, the node every service is connected to, which also leads the
 * quorum queues. The fault suite's promises are then audited: every accepted job ends, each charge
 * has one outcome, balances are exact, every webhook is delivered, every event stream is complete.
 */

const LEAD_MS = 5000; // load before the node is lost
const TAIL_MS = 8000; // load after

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Which node each service's connection is on (by the port it connected to), as a running node lists them. */
async function connectionsByNode(cluster: RabbitCluster): Promise<Map<string, string[]>> {
  const via = cluster.nodes.find((n) => n.running())!;
  const out = await cluster.ctl(via, 'list_connections', 'port', 'client_properties', '--formatter', 'json');
  const byNode = new Map<string, string[]>();
  for (const c of JSON.parse(out) as { port: number; client_properties: [string, string, unknown][] }[]) {
    const node = cluster.nodes.find((n) => n.port === c.port)?.name ?? `port ${c.port}`;
    const name = String(c.client_properties.find(([k]) => k === 'connection_name')?.[2] ?? '?');
    byNode.set(node, [...(byNode.get(node) ?? []), name]);
  }
  return byNode;
}

/** Leader node of each quorum queue. */
async function queueLeaders(cluster: RabbitCluster, via: ClusterNode): Promise<Map<string, number>> {
  const out = await cluster.ctl(via, 'list_queues', 'name', 'type', 'leader', '--formatter', 'json');
  const counts = new Map<string, number>();
  for (const q of JSON.parse(out) as { type: string; leader: string }[])
    if (q.type === 'quorum') counts.set(q.leader, (counts.get(q.leader) ?? 0) + 1);
  return counts;
}

describe('the fleet on a RabbitMQ cluster that loses a node', () => {
  let cluster: RabbitCluster;
  let fal: FakeFal;
  let fleet: Fleet;
  let db: Client;
  const started = Date.now();
  const report: string[] = [];
  let passed = false;
  const at = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;

  beforeAll(async () => {
    cluster = await startRabbitCluster(3);
    report.push(`${at()} cluster of ${cluster.nodes.map((n) => `${n.name} (:${n.port})`).join(', ')} formed`);
    fal = await startFakeFal({ completeAfterPolls: 1, webhookDelayMs: 300 });
    // First in the list, a node that is down: the fleet must start on the next one.
    const down = `amqp://guest:guest@127.0.0.1:${await freePort()}/`;
    fleet = await startFleet({
      AMQP_URL: [down, ...cluster.nodes.map((n) => n.url)].join(','),
      AMQP_QUORUM_QUEUES: 'true',
      PROVIDER: 'fal',
      FAL_KEY: fal.apiKey,
      FAL_QUEUE_URL: fal.url,
      NODE_EXTRA_CA_CERTS: combinedCaFile([fal.caPem, (await testTls()).cert]),
      ...FAULT_RUN_ENV,
    });
    report.push(
      `${at()} fleet ready (AMQP_QUORUM_QUEUES=true; AMQP_URL lists ${down.replace(/\/\/.*@/, '//')} first, which is down, then the three nodes)`,
    );
    db = new Client({ connectionString: fleet.env.DATABASE_URL });
    await db.connect();
  }, 600_000);

  afterAll(async () => {
    // A failed run says what the broker held: each queue's leader, backlog and consumers.
    const survivor = passed ? undefined : cluster?.nodes.find((n) => n.running());
    if (survivor) {
      const queues = await cluster
        .ctl(
          survivor,
          'list_queues',
          'name',
          'type',
          'leader',
          'messages_ready',
          'messages_unacknowledged',
          'consumers',
        )
        .catch((err: Error) => `list_queues failed: ${err.message}`);
      report.push(`queues at the end (via ${survivor.name}):\n${queues}`);
    }
    await db?.end();
    await fleet?.shutdown();
    await fal?.close();
    // A failed run keeps the nodes' logs: the broker's side of what went wrong.
    await cluster?.close({ keepLogs: !passed });
    if (!passed) console.log(['RabbitMQ cluster node loss: FAILED; what it did:', ...report].join('\n  '));
  });

  it('loses no job, credit, webhook or stream event when the node the fleet uses is lost mid-burst', async () => {
    const receiver = await startReceiver();
    const followers: StreamFollower[] = [];
    try {
      // Two well-funded users and one who runs out (402s), each with a webhook.
      const { users, secrets } = await usersWithWebhooks(fleet, [1_000_000, 1_000_000, 1000], receiver.url);
      followers.push(...users.map((u) => followStream(fleet.baseUrl, u.key)));
      const seed = Number(process.env.CLUSTER_SEED ?? Date.now() % 100_000);
      const load = startLoad({
        baseUrl: fleet.baseUrl,
        users: users.map((u) => ({ key: u.key, userId: u.userId })),
        clients: 6,
        pauseMs: 100,
        requestTimeoutMs: 15_000,
        seed,
        twoRoutes: false,
      });
      load.setPhase('before');
      await sleep(LEAD_MS);

      // The node to lose: the one every service is connected to, which leads the quorum queues.
      const connections = await connectionsByNode(cluster);
      const [victimName, clients] = [...connections.entries()].sort((a, b) => b[1].length - a[1].length)[0];
      const victim = cluster.nodes.find((n) => n.name === victimName)!;
      const leaders = await queueLeaders(cluster, victim);
      const quorumQueues = [...leaders.values()].reduce((a, b) => a + b, 0);
      report.push(
        `${at()} ${victim.name} holds ${clients.length} connections (${[...new Set(clients)].sort().join(', ')}) and leads ${leaders.get(victim.name) ?? 0} of ${quorumQueues} quorum queues: killed (SIGKILL)`,
      );
      load.setPhase('node lost');
      const killedAt = Date.now();
      await cluster.kill(victim);
      await sleep(TAIL_MS);
      const survivors = cluster.nodes.filter((n) => n.running());
      const after = await connectionsByNode(cluster);
      const newLeaders = await queueLeaders(cluster, survivors[0]);
      report.push(
        `${at()} after ${((Date.now() - killedAt) / 1000).toFixed(1)} s: connections ${[...after].map(([n, c]) => `${n} ${c.length}`).join(', ')}; quorum queue leaders ${[...newLeaders].map(([n, c]) => `${n} ${c}`).join(', ')}`,
      );
      load.setPhase('after');
      await load.stop();
      report.push(`${at()} load stopped`);

      const run = await auditRun(db, fleet, { users, secrets }, followers, load, receiver.received);
      const { snap, violations, logs, jobsOf } = run;
      report.push(`${((run.settledAt - started) / 1000).toFixed(1)}s settled`);
      const streamLines = users.map(
        (u, i) =>
          `  user ${u.userId}: stream delivered ${followers[i].received.length} of ${logs[i].length} logged events (${jobsOf[i].length} jobs), dropped by the server ${followers[i].serverDrops} times`,
      );

      const submits = load.outcomes.filter((o) => o.op === 'submit');
      const count = (phase: string) => submits.filter((o) => o.phase === phase && o.status === 202).length;
      console.log(
        [
          `RabbitMQ cluster node loss (seed ${seed}; CLUSTER_SEED=${seed} repeats the mix), ${at()} in all`,
          ...report.map((l) => `  ${l}`),
          `requests: ${submits.length} submits (202 before the loss ${count('before')}, after it ${count('node lost')}), ${load.outcomes.length - submits.length} cancels`,
          `jobs: ${snap.jobs.length} (${jobEndings(snap)}); webhook copies received: ${receiver.received.length}`,
          'checked:',
          ...run.checked.map((c) => `  ${c}`),
          "  event streams: ids = the log's, in order, each once; each ended job's terminal event once",
          ...streamLines,
          violationLines(violations),
        ].join('\n'),
      );

      // It lost the node it meant to: every service was connected to it, and it led quorum queues.
      expect(new Set(clients)).toEqual(new Set(SERVICES.map((x) => x.name)));
      expect(leaders.get(victim.name) ?? 0).toBeGreaterThan(0);
      expect(count('node lost')).toBeGreaterThan(0);
      expect(violations).toEqual([]);
      passed = true;
    } finally {
      await Promise.all(followers.map((f) => f.stop()));
      await receiver.close();
    }
  }, 600_000);
});
