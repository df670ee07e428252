import { parseFalEndpoints } from '@mf/catalog';
import { createStorage, storageConfigFromEnv } from '@mf/storage';
import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { loadGatewayConfig } from './config';
import { apiRouter } from './http/api.router';
import { mediaRoutes } from './http/routes/media.routes';
import { providerCallbackRoutes } from './http/routes/provider-callback.routes';
import { memoryRateLimiter } from './ratelimit/rate-limiter';
import { UsageRecorder } from './usage/usage-recorder';

runMain('gateway', loadGatewayConfig, (config, logger) => ({
  schema: 'gateway',
  migrations,
  setup: async ({ db, bus, router }) => {
    const usage = new UsageRecorder(db, logger, config.USAGE_FLUSH_MS);
    const storage = createStorage(storageConfigFromEnv(config));
    router.use(mediaRoutes(storage));
    router.use(providerCallbackRoutes(bus));
    router.use(
      '/api/v1',
      apiRouter({ db, bus, usage, bodyLimit: config.BODY_LIMIT, submitTimeoutMs: config.SUBMIT_TIMEOUT_MS, instructTimeoutMs: config.INSTRUCT_TIMEOUT_MS, exportTimeoutMs: config.EXPORT_TIMEOUT_MS, limiter: memoryRateLimiter(config.RATE_LIMIT_PER_MINUTE), falEndpoints: parseFalEndpoints(config.FAL_ENDPOINTS_JSON) }),
    );
    return [{ name: 'usage records', run: () => usage.stop() }];
  },
}));
