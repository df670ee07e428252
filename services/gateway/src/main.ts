import { parseFalEndpoints } from '@mf/catalog';
import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { loadGatewayConfig } from './config';
import { apiRouter } from './http/api.router';
import { memoryRateLimiter } from './ratelimit/rate-limiter';
import { UsageRecorder } from './usage/usage-recorder';

runMain('gateway', loadGatewayConfig, (config, logger) => ({
  schema: 'gateway',
  migrations,
  setup: async ({ db, bus, router }) => {
    const usage = new UsageRecorder(db, logger, config.USAGE_FLUSH_MS);
    router.use(
      '/api/v1',
      apiRouter({ db, bus, usage, bodyLimit: config.BODY_LIMIT, limiter: memoryRateLimiter(config.RATE_LIMIT_PER_MINUTE), falEndpoints: parseFalEndpoints(config.FAL_ENDPOINTS_JSON) }),
    );
    return [{ name: 'usage records', run: () => usage.stop() }];
  },
}));
