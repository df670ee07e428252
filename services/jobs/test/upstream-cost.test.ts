import https from 'node:https';
import client from 'prom-client';
import { DEFAULT_FAL_ENDPOINTS } from '@mf/catalog';
import type { SubmitJobRequest } from '@mf/contracts';
import { silentLogger } from '@mf/testing';
import type { JobRow } from '../src/domain/job';
import { OpenRouterProvider } from '../src/providers/openrouter/openrouter-provider';
import type { Provider } from '../src/providers/provider';
import { listAttempts } from '../src/repositories/attempts.repository';
import { createProviderMetrics } from '../src/routing/provider-metrics';
import { DEFAULT_BREAKER, type RoutingConfig } from '../src/routing/providers-document';
import { Routing } from '../src/routing/routing';
import { advanceJob } from '../src/usecases/advance-job.usecase';
import type { JobsContext } from '../src/usecases/context';
import { getJob, getJobAttempts } from '../src/usecases/read-jobs.usecase';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { upstreamCosts } from '../src/usecases/upstream-costs.usecase';
import { startFakeOpenRouter, type FakeOpenRouter } from './support/fake-openrouter';
import { producedFile, ScriptedProvider, startHarness, type Harness } from './support/jobs-harness';

/**
 * Upstream cost recorded on each attempt: OpenRouter's own `usage.cost` (a fake that answers in its
 * shape), and the providers document's price for what a route made (images on a priced route).
 */
describe('upstream cost of provider attempts (real database, fake upstreams)', () => {
  let h: Harness;
  let fake: FakeOpenRouter;
  let agent: https.Agent;
  let ctx: JobsContext;
  let registry: client.Registry;
  const priced = new ScriptedProvider('rep');
  const free = new ScriptedProvider('local');
  const user = 900;

  beforeAll(async () => {
    h = await startHarness();
    fake = await startFakeOpenRouter({ completeAfterPolls: 0 });
    agent = new https.Agent({ ca: fake.caPem });
    const or = new OpenRouterProvider({
      name: 'or',
      baseUrl: fake.url,
      apiKey: fake.key,
      timeoutMs: 5000,
      resultMaxBytes: 1e8,
      httpsAgent: agent,
      logger: silentLogger(),
    });
    const breaker = DEFAULT_BREAKER;
    const config: RoutingConfig = {
      providers: new Map([
        ['or', { name: 'or', type: 'openrouter', breaker }],
        ['rep', { name: 'rep', type: 'replicate', breaker }],
        ['local', { name: 'local', type: 'local', breaker }],
      ]),
      routes: {
        'vidgen-2.0': [{ provider: 'or', models: { 'text-to-video': 'acme/veo' }, price: { per_second: 9 } }],
        'imagegen-2': [{ provider: 'rep', models: { 'text-to-image': 'acme/image' }, price: { per_image: 0.003 } }],
        'vidgen-2.0-fast': [{ provider: 'local', models: null }],
      },
    };
    registry = new client.Registry();
    const providers = new Map<string, Provider>([
      ['or', or],
      ['rep', priced],
      ['local', free],
    ]);
    ctx = {
      ...h.ctx,
      routing: new Routing(config, providers, DEFAULT_FAL_ENDPOINTS, createProviderMetrics(registry)),
    };
    h.billing.balances.set(user, 100_000);
  });
  afterAll(async () => {
    await h?.close();
    await fake?.close();
    agent?.destroy();
  });

  /** Polls the job (as the poller would) until it ends. */
  const settle = async (jobId: string): Promise<string> => {
    for (let i = 0; i < 50; i++) {
      const row = (await h.db('jobs').where({ id: jobId }).first()) as JobRow;
      if (row.status !== 'processing') return row.status;
      await advanceJob(ctx, row);
    }
    throw new Error(`job ${jobId} did not end`);
  };
  const video = (fast: boolean): SubmitJobRequest => ({
    user_id: user,
    api_key_id: 1,
    type: 'video',
    params: {
      prompt: 'a lighthouse at dusk',
      image_url: null,
      fast,
      duration_seconds: 8,
      aspect_ratio: '16:9',
      resolution: '720p',
      generate_audio: false,
      seed: 3,
    },
  });
  const counter = async (name: string) =>
    Object.fromEntries(
      (await registry.getSingleMetric(name)!.get()).values.map((v) => [
        `${v.labels.provider}/${v.labels.model}`,
        v.value,
      ]),
    );

  it("records OpenRouter's usage.cost as reported, over the route's price", async () => {
    const { job_id } = await submitJob(ctx, video(false));
    expect(await settle(job_id)).toBe('completed');
    const { attempts } = await getJobAttempts(ctx, { user_id: user, job_id });
    expect(attempts).toEqual([
      expect.objectContaining({
        provider: 'or',
        state: 'succeeded',
        upstream_cost: 0.4,
        upstream_cost_source: 'reported',
      }),
    ]);
  });

  it("records the route's price for the images a priced route made, and nothing for the local provider", async () => {
    const file = producedFile(h.mediaDir, 'cost-1.png');
    priced.next = () => ({
      state: 'completed',
      outputs: [1, 2].map(() => ({ kind: 'file' as const, path: file, contentType: 'image/png' })),
    });
    const img = await submitJob(ctx, {
      user_id: user,
      api_key_id: 1,
      type: 'image',
      params: { prompt: 'two kites', image_urls: [], num_images: 2, aspect_ratio: '1:1', seed: 1 },
    });
    expect(await settle(img.job_id)).toBe('completed');
    // A second poll of the same result (a retried store) records nothing twice.
    await advanceJob(ctx, (await h.db('jobs').where({ id: img.job_id }).first()) as JobRow);
    expect((await listAttempts(h.db, img.job_id)).map((a) => [a.upstream_cost, a.upstream_cost_source])).toEqual([
      ['0.006000', 'price'],
    ]);

    const local = producedFile(h.mediaDir, 'cost-2.mp4');
    free.next = () => ({ state: 'completed', outputs: [{ kind: 'file', path: local, contentType: 'video/mp4' }] });
    const fast = await submitJob(ctx, video(true));
    expect(await settle(fast.job_id)).toBe('completed');
    expect((await getJob(ctx, { user_id: user, job_id: fast.job_id })).status).toBe('completed');
    const { attempts } = await getJobAttempts(ctx, { user_id: user, job_id: fast.job_id });
    expect(attempts).toEqual([
      expect.objectContaining({ provider: 'local', upstream_cost: null, upstream_cost_source: null }),
    ]);
  });

  it('counts upstream cost and credits per provider and model, and sums them for the operator report', async () => {
    expect(await counter('jobs_upstream_cost_usd_total')).toEqual({ 'or/vidgen-2.0': 0.4, 'rep/imagegen-2': 0.006 });
    expect(await counter('jobs_credits_charged_total')).toEqual({
      'or/vidgen-2.0': expect.any(Number),
      'rep/imagegen-2': 100,
      'local/vidgen-2.0-fast': expect.any(Number),
    });
    const range = {
      from: new Date(Date.now() - 3600_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    };
    const byProvider = await upstreamCosts(ctx, { ...range, by: 'provider' });
    expect(byProvider.rows.sort((a, b) => a.provider!.localeCompare(b.provider!))).toEqual([
      {
        provider: 'local',
        jobs: 1,
        credits_kept: expect.any(Number),
        attempts: 1,
        upstream_cost: 0,
        unpriced_attempts: 0,
      },
      {
        provider: 'or',
        jobs: 1,
        credits_kept: expect.any(Number),
        attempts: 1,
        upstream_cost: 0.4,
        unpriced_attempts: 0,
      },
      { provider: 'rep', jobs: 1, credits_kept: 100, attempts: 1, upstream_cost: 0.006, unpriced_attempts: 0 },
    ]);
    const byUser = await upstreamCosts(ctx, { ...range, by: 'user' });
    expect(byUser.rows).toEqual([
      expect.objectContaining({ user_id: user, jobs: 3, attempts: 3, upstream_cost: 0.406 }),
    ]);
    // Outside the range: nothing.
    const before = await upstreamCosts(ctx, {
      from: '2020-01-01T00:00:00.000Z',
      to: '2020-02-01T00:00:00.000Z',
      by: 'model',
    });
    expect(before.rows).toEqual([]);
  });
});
