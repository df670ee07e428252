import {
  csv,
  Joi,
  loadConfig,
  refuseDevelopmentSecrets,
  refuseTestSwitches,
  serviceEnv,
  type ServiceEnv,
} from '@mf/config';
import { DEV_WEBHOOK_SECRET_KEY, parseSecretKey } from './domain/secret-box';

export interface WebhookDispatcherConfig extends ServiceEnv {
  WEBHOOK_SECRET_KEY: string;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_RETRY_DELAYS_MS: number[];
  WEBHOOK_ALLOW_HTTP: boolean;
  WEBHOOK_ALLOW_PRIVATE: boolean;
  WEBHOOK_PREFETCH: number;
  WEBHOOK_ENDPOINT_CONCURRENCY: number;
  WEBHOOK_MAX_IN_FLIGHT: number;
  WEBHOOK_DISABLE_AFTER_MS: number;
}

const secretKey = Joi.string().custom((value: string, helpers) => {
  try {
    parseSecretKey(value);
    return value;
  } catch (err) {
    return helpers.message({ custom: `{{#label}} ${(err as Error).message}` });
  }
});

const retryDelays = Joi.string().custom((value: string, helpers) => {
  const delays = csv(value).map(Number);
  if (delays.length === 0 || delays.some((d) => !Number.isInteger(d) || d < 1)) {
    return helpers.message({ custom: '{{#label}} must be a comma-separated list of positive integers (ms)' });
  }
  return delays;
});

export const webhookDispatcherConfigSchema = Joi.object<WebhookDispatcherConfig>({
  ...serviceEnv(8085),
  /** Key that encrypts signing secrets at rest (32 bytes: 64 hex chars or base64); the default is for development only. */
  WEBHOOK_SECRET_KEY: secretKey.default(DEV_WEBHOOK_SECRET_KEY),
  /** Longest one delivery attempt may take (connect, send, response headers), ms. */
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(120_000).default(10_000),
  /** Waits before the retries of a failed delivery, comma-separated ms (the contract's 30 s, 2 min, 10 min). */
  WEBHOOK_RETRY_DELAYS_MS: retryDelays.default([30_000, 120_000, 600_000]),
  /** Accept and deliver to plain http URLs (local development and tests only). */
  WEBHOOK_ALLOW_HTTP: Joi.boolean().default(false),
  /** Accept and deliver to private, loopback and link-local addresses (local development and tests only). */
  WEBHOOK_ALLOW_PRIVATE: Joi.boolean().default(false),
  /** Job events one replica takes off the broker at once (each is only written to its endpoint's lane). */
  WEBHOOK_PREFETCH: Joi.number().integer().min(1).max(500).default(20),
  /** Attempts to one endpoint in flight at once, fleet-wide (its delivery lane); tests and resends have as many apart. */
  WEBHOOK_ENDPOINT_CONCURRENCY: Joi.number().integer().min(1).max(100).default(4),
  /** Attempts one replica makes at once, all endpoints together (HTTP waits: hundreds are cheap). */
  WEBHOOK_MAX_IN_FLIGHT: Joi.number().integer().min(1).max(5000).default(500),
  /** An endpoint whose deliveries fail without a break for this long is disabled (5 days, as Svix does), ms. */
  WEBHOOK_DISABLE_AFTER_MS: Joi.number()
    .integer()
    .min(1)
    .default(5 * 24 * 3600 * 1000),
});

/** Refuses the development key in production (naming it); elsewhere main.ts warns about it. */
export function loadWebhookDispatcherConfig(env: NodeJS.ProcessEnv = process.env): WebhookDispatcherConfig {
  const config = loadConfig(webhookDispatcherConfigSchema, env);
  refuseDevelopmentSecrets(config, { WEBHOOK_SECRET_KEY: usesDevSecretKey(config) });
  refuseTestSwitches(config, {
    WEBHOOK_ALLOW_HTTP: config.WEBHOOK_ALLOW_HTTP,
    WEBHOOK_ALLOW_PRIVATE: config.WEBHOOK_ALLOW_PRIVATE,
  });
  return config;
}

/** Whether the configured key is the development default. */
export function usesDevSecretKey(config: WebhookDispatcherConfig): boolean {
  return parseSecretKey(config.WEBHOOK_SECRET_KEY).equals(parseSecretKey(DEV_WEBHOOK_SECRET_KEY));
}
