import { parseFalEndpoints } from '@mf/catalog';
import { createStorage, storageConfigFromEnv } from '@mf/storage';
import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { loadGatewayConfig } from './config';
import { DEFAULT_THROTTLE_RULES, LoginThrottle } from './core/accounts/login-throttle';
import { dashboardApiRouter } from './console/dashboard/router';
import { cookiePolicyFor } from './console/dashboard/session-cookie';
import { SessionStore } from './core/accounts/session-store';
import { dashboardStatic } from './console/dashboard-ui/static';
import { apiRouter, type ApiDeps } from './api/api.router';
import { startIdempotency } from './http/idempotency';
import { mediaRoutes } from './api/routes/media.routes';
import { providerCallbackRoutes } from './api/routes/provider-callback.routes';
import { apiKeyVerifier } from './mcp/auth';
// Types only from the MCP SDK: loading it does not load the SDK.
import { postgresTaskStore } from './mcp/tasks/postgres-task-store';
import { oauthTokenVerifier } from './core/oauth/verifier';
import { onFirstRequest } from './http/on-first-request';
import { openApiRoutes } from './api/openapi/openapi.routes';
import { limiterFromConfig } from './core/ratelimit/limiter-from-config';
import { UsageRecorder } from './core/usage/usage-recorder';
import { startLiveFeed } from './core/events/live-feed';
import { Streams } from './api/sse/streams';
import { streamInstruct } from './api/sse/instruct-stream';
import { KeyCache } from './core/auth/key-cache';
import { keyRevocations, startKeyRevocationFeed } from './core/auth/key-revocations';
import { streamSlotsFromConfig } from './core/events/stream-slots-from-config';

runMain('gateway', loadGatewayConfig, (config, logger) => ({
  schema: 'gateway',
  migrations,
  setup: async ({ db, bus, router }) => {
    const usage = new UsageRecorder(db, logger, config.USAGE_FLUSH_MS);
    // Key lookups are reused while revocation events can reach this replica (the broker is up).
    const keyCache = new KeyCache({ ttlMs: config.KEY_CACHE_TTL_MS, live: () => bus.connected });
    const rateLimit = await limiterFromConfig(config, { db, schema: 'gateway', logger });
    logger.info({ store: rateLimit.store, perMinute: config.RATE_LIMIT_PER_MINUTE }, 'rate limit store');
    const storage = createStorage(storageConfigFromEnv(config));
    const idempotency = startIdempotency({
      db,
      logger,
      ttlHours: config.IDEMPOTENCY_TTL_HOURS,
      submitTimeoutMs: config.SUBMIT_TIMEOUT_MS,
      instructTimeoutMs: config.INSTRUCT_TIMEOUT_MS,
      exportTimeoutMs: config.EXPORT_TIMEOUT_MS,
      importTimeoutMs: config.ASSET_IMPORT_TIMEOUT_MS,
    });
    const loginThrottle = new LoginThrottle(rateLimit.counter, {
      ...DEFAULT_THROTTLE_RULES,
      failuresPerIp: { ...DEFAULT_THROTTLE_RULES.failuresPerIp, points: config.SIGNIN_FAILURES_PER_IP },
      signUpsPerIp: { ...DEFAULT_THROTTLE_RULES.signUpsPerIp, points: config.SIGNUPS_PER_IP_PER_HOUR },
    });
    const streamSlots = streamSlotsFromConfig(config, {
      store: rateLimit.store,
      db,
      schema: 'gateway',
      redis: rateLimit.redis,
      logger,
    });
    const streams = new Streams({ limits: streamSlots, sse: { heartbeatMs: config.SSE_HEARTBEAT_MS } });
    // A revoked key loses its cached lookups and its open streams on every replica.
    const endStreamsOf = (apiKeyId: number) => {
      const ended = streams.closeKey(apiKeyId);
      if (ended > 0) logger.info({ api_key_id: apiKeyId, streams: ended }, 'API key revoked: its event streams ended');
    };
    await startKeyRevocationFeed(bus, keyCache, logger, endStreamsOf);
    const revocations = keyRevocations({
      bus: () => Promise.resolve(bus),
      cache: keyCache,
      onRevoked: endStreamsOf,
      logger,
    });
    await streams.turns.start(bus);
    await startLiveFeed(bus, streams.hub, () => {
      logger.warn(
        { streams: streams.size },
        'live events resubscribed after a broker reconnect: ending open streams so they resume from the log',
      );
      streams.closeAll();
    });
    // Open streams would hold the HTTP server's close until the shutdown timeout: end them first
    // (clients reconnect, to another replica, with Last-Event-ID).
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => streams.closeAll());
    router.use(mediaRoutes(storage));
    router.use(providerCallbackRoutes(bus, { callbackSecret: config.PROVIDER_CALLBACK_SECRET }));
    // One limiter for /api/v1 and /api/mcp: the per-key limit covers both.
    const api: ApiDeps = {
      db,
      bus,
      keyCache,
      usage,
      bodyLimit: config.BODY_LIMIT,
      storage,
      uploadMaxBytes: config.IMPORT_MAX_BYTES,
      submitTimeoutMs: config.SUBMIT_TIMEOUT_MS,
      instructTimeoutMs: config.INSTRUCT_TIMEOUT_MS,
      exportTimeoutMs: config.EXPORT_TIMEOUT_MS,
      importTimeoutMs: config.ASSET_IMPORT_TIMEOUT_MS,
      limiter: rateLimit.limiter,
      falEndpoints: parseFalEndpoints(config.FAL_ENDPOINTS_JSON),
      idempotency: idempotency.middleware,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      webhookTestTimeoutMs: config.WEBHOOK_TEST_TIMEOUT_MS,
      streams,
      logger,
    };
    router.use(openApiRoutes()); // public: before the authenticated /api/v1 router
    router.use('/api/v1', apiRouter(api));
    const mcpVerifiers = [apiKeyVerifier(db, keyCache), oauthTokenVerifier(db)];
    router.use(
      '/api/mcp',
      // The MCP SDK and zod load on the first MCP request (on-first-request.ts says why).
      onFirstRequest(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
        const { mcpRouter } = require('./mcp/router') as typeof import('./mcp/router');
        return mcpRouter({
          ...api,
          logger,
          events: streams.hub,
          turns: streams.turns,
          verifiers: mcpVerifiers,
          tasks: (userId) => postgresTaskStore(db, 'gateway', userId),
        });
      }),
    );
    // The dashboard's JSON API, before the single-page app's static files at /dashboard/.
    router.use(
      '/dashboard/api',
      dashboardApiRouter({
        db,
        bus,
        sessions: new SessionStore(db),
        throttle: loginThrottle,
        cookies: cookiePolicyFor(config.PUBLIC_BASE_URL),
        publicBaseUrl: config.PUBLIC_BASE_URL,
        webhookTestTimeoutMs: config.WEBHOOK_TEST_TIMEOUT_MS,
        signupCredits: config.SIGNUP_CREDITS,
        falEndpoints: api.falEndpoints,
        submitTimeoutMs: config.SUBMIT_TIMEOUT_MS,
        keyRevocations: revocations,
        creditValueUsd: config.CREDIT_VALUE_USD,
        studio: {
          streamInstruct: (c) => streamInstruct({ bus, streams, logger, timeoutMs: config.INSTRUCT_TIMEOUT_MS }, c),
          storage,
          uploadMaxBytes: config.IMPORT_MAX_BYTES,
          instructTimeoutMs: config.INSTRUCT_TIMEOUT_MS,
          importTimeoutMs: config.ASSET_IMPORT_TIMEOUT_MS,
        },
      }),
    );
    // The OAuth endpoints (the SDK's handlers) load on the first request under /oauth or
    // /.well-known/oauth-*; its router matches prefixes case-insensitively, so does this test.
    router.use(
      onFirstRequest(
        () => {
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
          const { oauthRouter } = require('./console/oauth/router') as typeof import('./console/oauth/router');
          return oauthRouter({
            db,
            sessions: new SessionStore(db),
            cookies: cookiePolicyFor(config.PUBLIC_BASE_URL),
            publicBaseUrl: config.PUBLIC_BASE_URL,
          });
        },
        (req) => /oauth/i.test(req.path),
      ),
    );
    router.use(dashboardStatic(undefined, config.PUBLIC_BASE_URL));
    return [
      { name: 'usage records', run: () => usage.stop() },
      { name: 'idempotency key purge', run: () => idempotency.stop() },
      { name: 'stream slot renewal', run: () => streamSlots.stop() },
      { name: 'rate-limit store', run: () => rateLimit.close() },
    ];
  },
}));
