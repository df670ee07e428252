import { parseFalEndpoints } from '@mf/catalog';
import { periodic, runMain, type PeriodicTask } from '@mf/runtime';
import { assertFetchableUrl, downloadToFile } from '@mf/safe-fetch';
import { createStorage, storageConfigFromEnv } from '@mf/storage';
import { migrations } from '../migrations';
import { loadJobsConfig } from './config';
import { serveJobsRpc } from './messaging/jobs-rpc.server';
import { relayOutbox } from './messaging/outbox-relay';
import { createProvider } from './providers';
import { advanceDueJobs } from './usecases/advance-job.usecase';
import type { JobsContext } from './usecases/context';
import { retryPendingRefunds, sweepRetention, sweepStuckSubmits } from './usecases/sweep.usecase';

runMain('jobs', loadJobsConfig, (config, logger) => ({
  schema: 'jobs',
  migrations,
  setup: async ({ db, bus }) => {
    const policy = { allowPrivate: config.ALLOW_PRIVATE_URLS, allowHttp: false };
    const fetchReference = async (url: string, dest: string): Promise<void> => {
      await downloadToFile(url, dest, { ...policy, maxBytes: config.REFERENCE_MAX_BYTES, timeoutMs: config.REFERENCE_TIMEOUT_MS, maxRedirects: 3, accept: ['image/'] });
    };
    const storage = createStorage(storageConfigFromEnv(config));
    await storage.check();
    let relay: PeriodicTask | undefined;
    const ctx: JobsContext = {
      db,
      bus,
      storage,
      logger,
      provider: createProvider(config, logger, fetchReference),
      falEndpoints: parseFalEndpoints(config.FAL_ENDPOINTS_JSON),
      settings: {
        publicBaseUrl: config.PUBLIC_BASE_URL,
        jobTimeoutMs: config.JOB_TIMEOUT_MS,
        pollIntervalMs: config.POLL_INTERVAL_MS,
        callbackSecret: config.PROVIDER_CALLBACK_SECRET,
        providerCallbacks: config.PROVIDER === 'fal',
      },
      assertReferenceUrl: async (url) => {
        await assertFetchableUrl(url, policy);
      },
      downloadResult: async (url, dest) => {
        // Results come from the configured upstream provider, not from users: private addresses
        // are allowed only when configured (a test's fake provider), like references.
        await downloadToFile(url, dest, { ...policy, maxBytes: config.RESULT_MAX_BYTES, timeoutMs: 5 * 60_000, maxRedirects: 3 });
      },
      kickRelay: () => relay?.kick(),
      faultPoint: (name) => {
        if (config.FAULT_POINTS.includes(name)) {
          logger.warn({ faultPoint: name }, 'fault injection: killing the process');
          process.kill(process.pid, 'SIGKILL');
        }
      },
    };

    relay = periodic('outbox relay', 1000, () => relayOutbox(db, bus), logger);
    const poller = periodic('job poller', config.POLL_INTERVAL_MS, () => advanceDueJobs(ctx, config.POLL_BATCH), logger);
    const sweeper = periodic(
      'sweeper',
      config.SWEEP_INTERVAL_MS,
      async () => {
        await sweepStuckSubmits(ctx, config.SUBMIT_STUCK_AFTER_MS);
        await retryPendingRefunds(ctx);
        await sweepRetention(ctx, config.JOB_RETENTION_DAYS);
        return 0;
      },
      logger,
    );
    await serveJobsRpc(bus, ctx, () => poller.kick());
    return [
      { name: 'poller', run: () => poller.stop() },
      { name: 'sweeper', run: () => sweeper.stop() },
      { name: 'outbox relay', run: () => relay!.stop() },
    ];
  },
}));
