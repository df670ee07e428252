import fs from 'node:fs';
import path from 'node:path';
import { api, startFleet, userWithKey, type Fleet } from '../support/fleet';
import { eventually, waitForJob } from '../support/jobs';
import { SPAN_KIND, startOtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { LOOPBACK_DELIVERY, startReceiver } from '../support/webhook-receiver';

/** A Postgres query's span (the pg instrumentation names the system the stable or the older way). */
function isQuery(s: ReceivedSpan): boolean {
  return (s.attributes['db.system.name'] ?? s.attributes['db.system']) === 'postgresql';
}

/** Every span of one trace. */
function traceOf(spans: ReceivedSpan[], traceId: string): ReceivedSpan[] {
  return spans.filter((s) => s.traceId === traceId);
}

/** The spans whose parent is not in the trace (none but the root's, whose parent is none). */
function orphans(trace: ReceivedSpan[]): ReceivedSpan[] {
  const ids = new Set(trace.map((s) => s.spanId));
  return trace.filter((s) => s.parentSpanId !== '' && !ids.has(s.parentSpanId));
}

/** Whether every span of the trace has come in so far: a root, and each other span's parent. */
function whole(spans: ReceivedSpan[], traceId: string): boolean {
  const trace = traceOf(spans, traceId);
  return trace.some((s) => s.parentSpanId === '') && orphans(trace).length === 0;
}

/** The chain of services from a span up to its trace's root, e.g. billing <- jobs <- gateway. */
function ancestry(trace: ReceivedSpan[], span: ReceivedSpan): string[] {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const chain: string[] = [];
  for (let s: ReceivedSpan | undefined = span; s; s = byId.get(s.parentSpanId))
    if (chain[chain.length - 1] !== s.service) chain.push(s.service);
  return chain;
}

function serviceLines(fleet: Fleet, service: string): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(fleet.logDir, `${service}.log`), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Tracing on, through the production build (the bundles, where most modules never pass through a
 * require hook): the fleet exports OTLP/HTTP JSON to a collector stand-in on loopback.
 */
describe('tracing (production build, OTLP/HTTP JSON)', () => {
  let fleet: Fleet;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;

  beforeAll(async () => {
    // The build is current: the e2e globalSetup rebuilds it when a source is newer.
    otlp = await startOtlpReceiver();
    fleet = await startFleet(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        // Spans go out every 100 ms rather than every 5 s, so the test waits less.
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ...LOOPBACK_DELIVERY,
      },
      { form: 'compiled' },
    );
  }, 240_000);

  afterAll(async () => {
    await fleet?.shutdown();
    await otlp?.close();
  });

  it('makes one trace of a submit across gateway, jobs and billing, and one of its completion and webhook', async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all', 10_000);
      await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', receiver.url);
      const submit = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key: u.key,
        body: { prompt: 'a traced lighthouse' },
      });
      expect(submit.status).toBe(202);
      const jobId = String(submit.body.job_id);

      // The submit: the gateway's server span is the root, and every hop hangs under it.
      const isSubmit = (s: ReceivedSpan) =>
        s.service === 'gateway' &&
        s.kind === SPAN_KIND.server &&
        (s.attributes['http.target'] ?? s.attributes['url.path']) === '/api/v1/image/imagegen/generate';
      expect(await eventually(() => otlp.spans.some(isSubmit), 30_000)).toBe(true);
      const root = otlp.spans.find(isSubmit)!;
      expect(root.parentSpanId).toBe('');
      expect(root.attributes['http.route']).toBe('/api/v1/image/imagegen/generate');
      const billingQuery = (s: ReceivedSpan) => s.traceId === root.traceId && s.service === 'billing' && isQuery(s);
      // A span is sent once it ends (a consumer's at its ack, after the work it holds): wait for all.
      expect(await eventually(() => otlp.spans.some(billingQuery) && whole(otlp.spans, root.traceId), 30_000)).toBe(
        true,
      );
      const submitTrace = traceOf(otlp.spans, root.traceId);
      expect(new Set(submitTrace.map((s) => s.service))).toEqual(new Set(['gateway', 'jobs', 'billing']));
      expect(orphans(submitTrace)).toEqual([]);
      // The hops: jobs consumed the gateway's RPC, billing the jobs service's, each writing to Postgres.
      // (Each service's consumer span of its RPC queue, `<queue> process`.)
      const serving = (service: string) =>
        submitTrace.find(
          (s) => s.service === service && s.kind === SPAN_KIND.consumer && s.name === `${service}.rpc process`,
        )!;
      expect(ancestry(submitTrace, serving('jobs'))).toEqual(['jobs', 'gateway']);
      expect(ancestry(submitTrace, serving('billing'))).toEqual(['billing', 'jobs', 'gateway']);
      expect(ancestry(submitTrace, otlp.spans.find(billingQuery)!)).toEqual(['billing', 'jobs', 'gateway']);
      expect(submitTrace.some((s) => s.service === 'jobs' && isQuery(s))).toBe(true);

      // Its messages name the job, and so do the completion's below: the tag joins a job's two traces.
      expect(submitTrace.some((s) => s.attributes['mediaforge.job_id'] === jobId)).toBe(true);

      // Log lines written inside the submit carry its trace.
      expect(serviceLines(fleet, 'gateway').some((l) => l.trace_id === root.traceId && l.span_id)).toBe(true);

      // The completion: its own trace, from the jobs service's publish of job.completed to the
      // dispatcher's POST to the receiver.
      await waitForJob(fleet, u.key, jobId);
      expect(await eventually(() => receiver.received.length >= 1, 30_000)).toBe(true);
      const receiverPort = new URL(receiver.url).port;
      const isDelivery = (s: ReceivedSpan) =>
        s.service === 'webhook-dispatcher' &&
        s.kind === SPAN_KIND.client &&
        String(s.attributes['http.url'] ?? s.attributes['url.full'] ?? '').includes(`:${receiverPort}/`);
      expect(await eventually(() => otlp.spans.some(isDelivery), 30_000)).toBe(true);
      const delivery = otlp.spans.find(isDelivery)!;
      expect(delivery.traceId).not.toBe(root.traceId);
      expect(await eventually(() => whole(otlp.spans, delivery.traceId), 30_000)).toBe(true);
      const completionTrace = traceOf(otlp.spans, delivery.traceId);
      const [origin] = completionTrace.filter((s) => s.parentSpanId === '');
      expect(origin).toMatchObject({ service: 'jobs', kind: SPAN_KIND.producer });
      expect(origin.attributes['messaging.rabbitmq.routing_key']).toBe('job.completed');
      expect(ancestry(completionTrace, delivery)).toEqual(['webhook-dispatcher', 'jobs']);
      expect(origin.attributes['mediaforge.job_id']).toBe(jobId);
    } finally {
      await receiver.close();
    }
  });
});
