import { parseFalEndpoints } from '@mf/catalog';
import { periodic, runMain } from '@mf/runtime';
import { assertFetchableUrl, downloadToFile, downloadToStream, keepAliveDownloadAgents } from '@mf/safe-fetch';
import { createStorage, storageConfigFromEnv } from '@mf/storage';
import { migrations } from '../migrations';
import { DEV_CALLBACK_SECRET, loadJobsConfig } from './config';
import { injectFaults } from './faults';
import { serveJobsReportsRpc, serveJobsRpc } from './messaging/jobs-rpc.server';
import { relayOutbox } from './messaging/outbox-relay';
import { consumeProviderCallbacks } from './messaging/provider-callbacks.consumer';
import { createProviders } from './providers';
import { createProviderMetrics } from './routing/provider-metrics';
import { Routing } from './routing/routing';
import { pacingFor, StatusCallBudget, statusCallLimits } from './routing/status-call-budget';
import { ADVANCING_ROUNDS, Advancer } from './usecases/advancer';
import { CallbackPolls } from './usecases/callback-poll.usecase';
import type { JobsContext } from './usecases/context';
import { jobPoller } from './usecases/job-poller';
import { RETENTION_SWEEP_MS, retryPendingRefunds, sweepRetention, sweepStuckSubmits } from './usecases/sweep.usecase';

runMain('jobs', loadJobsConfig, (config, logger) => ({
  schema: 'jobs',
  migrations,
  setup: async ({ db, bus, registry }) => {
    if (config.PROVIDER_CALLBACK_SECRET === DEV_CALLBACK_SECRET) {
      logger.warn(
        'PROVIDER_CALLBACK_SECRET is the development default: provider callback URLs are signed with a secret published in the source code; set it in production',
      );
    }
    const policy = { allowPrivate: config.ALLOW_PRIVATE_URLS, allowHttp: false };
    const fetchReference = async (url: string, dest: string): Promise<void> => {
      await downloadToFile(url, dest, {
        ...policy,
        maxBytes: config.REFERENCE_MAX_BYTES,
        timeoutMs: config.REFERENCE_TIMEOUT_MS,
        maxRedirects: 3,
        accept: ['image/'],
      });
    };
    // Results come from a few provider hosts, one after another: a kept connection saves a TCP
    // and TLS handshake per result.
    const resultAgents = keepAliveDownloadAgents(policy);
    const storage = createStorage(storageConfigFromEnv(config));
    await storage.check();
    const providers = createProviders(config.routing, config, { logger, storage, fetchReference });
    // Test-only faults wrap each provider here, so no use case carries test code.
    injectFaults(providers, config.FAULT_POINTS, logger);
    const routing = new Routing(
      config.routing,
      providers,
      parseFalEndpoints(config.FAL_ENDPOINTS_JSON),
      createProviderMetrics(registry),
    );
    logger.info(
      {
        providers: [...config.routing.providers.values()].map((p) => `${p.name}:${p.type}`),
        routes: Object.fromEntries(
          Object.entries(config.routing.routes).map(([m, r]) => [m, r.map((x) => x.provider)]),
        ),
      },
      'provider routes',
    );
    const ctx: JobsContext = {
      db,
      bus,
      storage,
      logger,
      routing,
      settings: {
        publicBaseUrl: config.PUBLIC_BASE_URL,
        jobTimeoutMs: config.JOB_TIMEOUT_MS,
        pollIntervalMs: config.POLL_INTERVAL_MS,
        callbackSecret: config.PROVIDER_CALLBACK_SECRET,
        submitBudgetMs: config.SUBMIT_ROUTES_BUDGET_MS,
        // Past one HTTP timeout (and some slack) a submit still "submitting" is dead.
        submitStaleAfterMs: config.PROVIDER_HTTP_TIMEOUT_MS + 15_000,
      },
      assertReferenceUrl: async (url) => {
        await assertFetchableUrl(url, policy);
      },
      // Results come from the configured upstream provider, not from users: private addresses
      // are allowed only when configured (a test's fake provider), like references.
      downloadResult: (url, write) =>
        downloadToStream(
          url,
          {
            ...policy,
            maxBytes: config.RESULT_MAX_BYTES,
            timeoutMs: 5 * 60_000,
            maxRedirects: 3,
            agents: resultAgents,
          },
          (body) => write(body),
        ),
      kickRelay: () => relay.kick(),
    };

    const relay = periodic('outbox relay', 1000, () => relayOutbox(db, bus), logger);
    const budget = new StatusCallBudget(
      statusCallLimits(config.routing.providers.values(), config.STATUS_CALLS_PER_SECOND),
      Date.now,
      pacingFor(config.POLL_BATCH),
    );
    // One cap on the jobs advanced at once, for the poller's rounds and the callbacks alike; a
    // finishing advance wakes the poller when a round was held back by it.
    const advancer = new Advancer(ctx, ADVANCING_ROUNDS * config.POLL_BATCH, () => poller.kick());
    const poller = jobPoller(ctx, advancer, budget, { batch: config.POLL_BATCH, intervalMs: config.POLL_INTERVAL_MS });
    const callbackPolls = new CallbackPolls(ctx, () => poller.kick(), advancer);
    const sweeper = periodic(
      'sweeper',
      config.SWEEP_INTERVAL_MS,
      async () => {
        await sweepStuckSubmits(ctx, config.SUBMIT_STUCK_AFTER_MS);
        await retryPendingRefunds(ctx);
        return 0;
      },
      logger,
    );
    // Retention counts in days: a look once a minute is plenty (two statements a sweep otherwise);
    // a full batch deleted runs it again at once, so a backlog drains.
    const retention = periodic(
      'retention',
      Math.max(config.SWEEP_INTERVAL_MS, RETENTION_SWEEP_MS),
      () => sweepRetention(ctx, config.JOB_RETENTION_DAYS),
      logger,
    );
    await serveJobsRpc(bus, ctx, callbackPolls);
    await consumeProviderCallbacks(bus, ctx, callbackPolls, config.POLL_BATCH);
    await serveJobsReportsRpc(bus, ctx);
    return [
      { name: 'poller', run: () => poller.stop() },
      { name: 'advances', run: () => advancer.drain() },
      { name: 'sweeper', run: () => sweeper.stop() },
      { name: 'retention', run: () => retention.stop() },
      { name: 'outbox relay', run: () => relay.stop() },
      {
        name: 'provider connections',
        run: () => {
          providers.forEach((p) => (p as { close?: () => void }).close?.());
          resultAgents.httpAgent.destroy();
          resultAgents.httpsAgent.destroy();
          return Promise.resolve();
        },
      },
    ];
  },
}));
