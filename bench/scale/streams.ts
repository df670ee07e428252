import { performance } from 'node:perf_hooks';
import type { BenchFleet } from '../lib/fleet';
import { idleRss } from '../lib/rss';
import { openStream } from '../lib/sse-client';
import { num, summarize, type Summary } from '../lib/stats';
import type { Tenants } from '../lib/tenants';
import { firedAt, say, sayLoad, scaled, SCALE, spread, submitMany } from './common';

const STREAMS_PER_USER = 10;
const PER_SECOND = 100;

export interface StreamsResult {
  streams: number;
  /** Upstream completion -> the job.completed read, over every stream that should see it. */
  latency: Summary;
  /** Events that should have arrived and did not. */
  missing: number;
  rssPerStreamKiB: number;
}

/**
 * 3) A thousand live streams: USERS users with ten user-wide streams each (the default per-key cap),
 * then 100 jobs a second complete for SECONDS, spread over those users: completion -> event read,
 * on each of the ten streams of the job's user.
 */
export async function liveStreams(fleet: BenchFleet, tenants: Tenants): Promise<StreamsResult> {
  const users = scaled(100);
  const seconds = Math.max(3, 10 * Math.min(1, SCALE));
  const jobs = PER_SECOND * seconds;
  console.log(
    `\n3) live streams: ${users} users x ${STREAMS_PER_USER} streams, ${PER_SECOND} completions a second for ${seconds} s spread over them`,
  );
  const members = await Promise.all(Array.from({ length: users }, () => tenants.make()));
  const gatewayPid = fleet.procs.gateway.child.pid!;
  const rssBefore = await idleRss(gatewayPid);
  // Per job id, the instants its job.completed was read, one per stream (a stream's repeat is not).
  const reads = new Map<string, number[]>();
  let repeats = 0;
  let ended = 0;
  const streams: Array<{ close: () => void }> = [];
  try {
    for (const m of members)
      streams.push(
        ...(await Promise.all(
          Array.from({ length: STREAMS_PER_USER }, () => {
            const seen = new Set<string>();
            return openStream(
              fleet.baseUrl,
              m.key,
              (type, data) => {
                if (type !== 'job.completed') return;
                const at = performance.now();
                const id = (JSON.parse(data) as { job_id: string }).job_id;
                if (seen.has(id)) return void (repeats += 1);
                seen.add(id);
                const list = reads.get(id);
                if (list) list.push(at);
                else reads.set(id, [at]);
              },
              () => (ended += 1),
            );
          }),
        )),
      );
    const rssStreams = await idleRss(gatewayPid);
    const perStream = ((rssStreams - rssBefore) * 1024) / streams.length;
    say(
      `${streams.length} streams open: gateway RSS ${num(rssBefore)} -> ${num(rssStreams)} MiB (${num(perStream)} KiB per stream)`,
    );
    const submitted = await submitMany(
      fleet,
      members.map((m) => m.key),
      jobs,
      'scale streams',
    );
    say(`submitted ${jobs} jobs over the ${users} users`);
    sayLoad('before completing');
    const completedAt = new Map<string, number>();
    await firedAt(
      submitted.ids.map((_, i) => (i * 1000) / PER_SECOND),
      (i) => completedAt.set(submitted.ids[i], fleet.provider.complete(submitted.ids[i])),
    );
    const expected = jobs * STREAMS_PER_USER;
    const count = () => [...reads.values()].reduce((s, l) => s + l.length, 0);
    const deadline = Date.now() + 120_000;
    while (count() < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const samples: number[] = [];
    for (const [id, at] of completedAt) for (const read of reads.get(id) ?? []) samples.push(read - at);
    const latency = summarize(samples);
    say(
      `upstream completion -> event read on each stream: ${spread(latency)} (${samples.length}/${expected} events; ${repeats} repeated; ${ended} streams ended by the gateway)`,
    );
    const rssAfter = await idleRss(gatewayPid);
    say(`gateway RSS after: ${num(rssAfter)} MiB`);
    sayLoad('after');
    return { streams: streams.length, latency, missing: expected - samples.length, rssPerStreamKiB: perStream };
  } finally {
    for (const s of streams) s.close();
  }
}
