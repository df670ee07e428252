import { Joi, loadConfig, refuseDevelopmentSecrets, serviceEnv, type ServiceEnv } from '@mf/config';
import { DEV_CALLBACK_SECRET } from '@mf/runtime';
import { storageEnv, type StorageEnv } from '@mf/storage';
import { RATE_LIMIT_STORES, type RateLimitConfig } from './core/ratelimit/settings';

export interface GatewayConfig extends ServiceEnv, StorageEnv, RateLimitConfig {
  BODY_LIMIT: string;
  RATE_LIMIT_PER_MINUTE: number;
  PUBLIC_BASE_URL: string;
  FAL_ENDPOINTS_JSON?: string;
  USAGE_FLUSH_MS: number;
  SUBMIT_TIMEOUT_MS: number;
  INSTRUCT_TIMEOUT_MS: number;
  EXPORT_TIMEOUT_MS: number;
  ASSET_IMPORT_TIMEOUT_MS: number;
  CREDIT_VALUE_USD: number;
  IMPORT_MAX_BYTES: number;
  WEBHOOK_TEST_TIMEOUT_MS: number;
  PROVIDER_CALLBACK_SECRET: string;
  IDEMPOTENCY_TTL_HOURS: number;
  SIGNIN_FAILURES_PER_IP: number;
  SIGNUPS_PER_IP_PER_HOUR: number;
  SIGNUP_CREDITS: number;
  STREAMS_PER_KEY: number;
  STREAMS_PER_USER: number;
  STREAM_SLOT_TTL_MS: number;
  SSE_HEARTBEAT_MS: number;
  KEY_CACHE_TTL_MS: number;
}

export const gatewayConfigSchema = Joi.object<GatewayConfig>({
  ...serviceEnv(8080),
  /** Largest accepted request body. Larger bodies get 413. */
  BODY_LIMIT: Joi.string()
    .pattern(/^\d+(b|kb|mb)$/i)
    .default('1mb'),
  /** Requests per minute per API key (contract: 60). */
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(60),
  /** Where the per-key counts live: memory (per process, the contract's default), or shared by every replica in postgres or redis. */
  RATE_LIMIT_STORE: Joi.string()
    .valid(...RATE_LIMIT_STORES)
    .default('memory'),
  /** Redis for RATE_LIMIT_STORE=redis (required then). */
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .when('RATE_LIMIT_STORE', { is: 'redis', then: Joi.required(), otherwise: Joi.optional() }),
  /** Prefix of the shared counters' keys: one per deployment sharing a Redis. */
  RATE_LIMIT_KEY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9:._-]{1,64}$/)
    .default('mf:ratelimit'),
  /** Base URL clients reach the gateway at; result and poll URLs are built from it. */
  PUBLIC_BASE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://localhost:8080'),
  /** JSON override of the upstream endpoint map shown in /models (per model, per mode). */
  FAL_ENDPOINTS_JSON: Joi.string().optional(),
  /**
   * How long an API key lookup is reused without asking the database, ms (0: never). A revocation
   * evicts the key from every replica at once through the broker; this only bounds what a lost
   * revocation event could leave behind.
   */
  KEY_CACHE_TTL_MS: Joi.number().integer().min(0).max(30_000).default(5000),
  /** How often buffered usage records are written, ms. */
  USAGE_FLUSH_MS: Joi.number().integer().min(10).default(1000),
  /** Longest a generate request may wait for its submit (charge + provider submit), ms. */
  SUBMIT_TIMEOUT_MS: Joi.number().integer().min(100).default(60_000),
  /** Longest an editor instruct call may wait for the agent's turn (a video generation takes minutes), ms. */
  INSTRUCT_TIMEOUT_MS: Joi.number().integer().min(100).default(900_000),
  /** Longest an export request may take, ms (longer than the editor's EXPORT_REQUEST_TIMEOUT_MS). */
  EXPORT_TIMEOUT_MS: Joi.number().integer().min(1000).default(720_000),
  /**
   * Longest an asset import or upload may take (the editor fetches, probes and stores it), ms:
   * longer than the editor's IMPORT_TIMEOUT_MS, so a slow import is answered, not cut off by a 503.
   */
  ASSET_IMPORT_TIMEOUT_MS: Joi.number().integer().min(1000).default(120_000),
  /** What one credit is worth in US dollars, for the operator's usage report's revenue and margin. */
  CREDIT_VALUE_USD: Joi.number().min(0).default(0.01),
  /** The largest media upload, bytes (the editor's limit of a URL import too). */
  IMPORT_MAX_BYTES: Joi.number()
    .integer()
    .min(1)
    .default(200 * 1024 * 1024),
  /** Longest the dashboard's webhook test may take, ms (longer than the dispatcher's WEBHOOK_TIMEOUT_MS). */
  WEBHOOK_TEST_TIMEOUT_MS: Joi.number().integer().min(1000).default(15_000),
  /** jobs' secret of provider callback URLs: the gateway checks a callback's token before anything reaches jobs. */
  PROVIDER_CALLBACK_SECRET: Joi.string().min(16).default(DEV_CALLBACK_SECRET),
  /** Credits granted once to each account made with the dashboard's sign-up, through billing's ledger (0: none; then an admin grants them). */
  SIGNUP_CREDITS: Joi.number().integer().min(0).max(1_000_000_000).default(0),
  /** How long an Idempotency-Key's answer is kept and replayed, hours (Stripe: 24). */
  IDEMPOTENCY_TTL_HOURS: Joi.number().integer().min(1).max(720).default(24),
  /** Failed dashboard sign-ins allowed per client IP in 15 minutes, whatever the email (password spraying). */
  SIGNIN_FAILURES_PER_IP: Joi.number().integer().min(1).default(30),
  /** Dashboard sign-ups allowed per client IP in an hour. */
  SIGNUPS_PER_IP_PER_HOUR: Joi.number().integer().min(1).default(10),
  /** Server-sent event streams one API key may hold open at once (on one gateway; on all with a shared RATE_LIMIT_STORE); more get 429. */
  STREAMS_PER_KEY: Joi.number().integer().min(1).default(10),
  /** Streams one user may hold open over all their keys (same store as the per-key count); more get 429. */
  STREAMS_PER_USER: Joi.number().integer().min(1).default(25),
  /**
   * With a shared RATE_LIMIT_STORE the stream limit counts across replicas: how long an open
   * stream's slot outlives its replica's last renewal (renewed every third of it), ms.
   */
  STREAM_SLOT_TTL_MS: Joi.number().integer().min(300).default(30_000),
  /** How often an idle event stream gets a `:` comment (keeps proxies from closing it), ms. */
  SSE_HEARTBEAT_MS: Joi.number().integer().min(10).default(15_000),
  ...storageEnv,
});

/** The development default of PROVIDER_CALLBACK_SECRET is refused in production (naming it). */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const config = loadConfig(gatewayConfigSchema, env);
  refuseDevelopmentSecrets(config, {
    PROVIDER_CALLBACK_SECRET: config.PROVIDER_CALLBACK_SECRET === DEV_CALLBACK_SECRET,
  });
  return config;
}
