import {
  ConfigError,
  csv,
  Joi,
  loadConfig,
  refuseDevelopmentSecrets,
  refuseTestSwitches,
  serviceEnv,
  type ServiceEnv,
} from '@mf/config';
import { DEV_CALLBACK_SECRET } from '@mf/runtime';
import { storageEnv, type StorageEnv } from '@mf/storage';
import { FAULT_POINTS, isFaultPoint } from './faults';
import {
  parseProvidersDocument,
  readProvidersDocument,
  shorthandRouting,
  type RoutingConfig,
} from './routing/providers-document';

export { DEV_CALLBACK_SECRET };

export interface JobsConfig extends ServiceEnv, StorageEnv {
  PUBLIC_BASE_URL: string;
  PROVIDER: 'local' | 'fal';
  FAL_KEY?: string;
  FAL_QUEUE_URL: string;
  FAL_ENDPOINTS_JSON?: string;
  FAL_WEBHOOK_JWKS_URL: string;
  PROVIDER_HTTP_TIMEOUT_MS: number;
  PROVIDER_CALLBACK_SECRET: string;
  LOCAL_WORK_DIR: string;
  LOCAL_RENDER_CONCURRENCY: number;
  LOCAL_RENDER_TIMEOUT_MS: number;
  FFMPEG_PATH?: string;
  JOB_TIMEOUT_MS: number;
  JOB_RETENTION_DAYS: number;
  POLL_INTERVAL_MS: number;
  POLL_BATCH: number;
  STATUS_CALLS_PER_SECOND: number;
  SUBMIT_STUCK_AFTER_MS: number;
  SWEEP_INTERVAL_MS: number;
  ALLOW_PRIVATE_URLS: boolean;
  REFERENCE_MAX_BYTES: number;
  REFERENCE_TIMEOUT_MS: number;
  RESULT_MAX_BYTES: number;
  FAULT_POINTS: string[];
  PROVIDERS_FILE?: string;
  PROVIDERS_JSON?: string;
  SUBMIT_ROUTES_BUDGET_MS: number;
  ALLOW_LOCAL_PROVIDER: boolean;
  /** The providers and routes: from the providers document, or PROVIDER's one-provider shorthand. */
  routing: RoutingConfig;
}

export const jobsConfigSchema = Joi.object<JobsConfig>({
  ...serviceEnv(8082),
  ...storageEnv,
  /** Base URL clients reach the gateway at: result URLs are <PUBLIC_BASE_URL>/media/<key>. */
  PUBLIC_BASE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://localhost:8080'),
  /** The providers document (YAML or JSON file): providers and per-model routes (docs/providers.md). */
  PROVIDERS_FILE: Joi.string().optional(),
  /** The same document inline (JSON). */
  PROVIDERS_JSON: Joi.string().optional(),
  /** A submit tries routes this long (after the first) before it answers 202 and leaves the rest to the poller, ms. */
  SUBMIT_ROUTES_BUDGET_MS: Joi.number().integer().min(0).default(20_000),
  /** Without a providers document: which provider renders, local (ffmpeg, offline) or fal (the upstream queue API). */
  PROVIDER: Joi.string().valid('local', 'fal').default('local'),
  /** fal API key; required when PROVIDER=fal (and no providers document is set). */
  FAL_KEY: Joi.string().when('PROVIDER', {
    is: 'fal',
    then: Joi.when('PROVIDERS_FILE', {
      is: Joi.exist(),
      otherwise: Joi.when('PROVIDERS_JSON', { is: Joi.exist(), otherwise: Joi.required() }),
    }),
  }),
  /** fal queue API base URL. */
  FAL_QUEUE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('https://queue.fal.run'),
  /** Where fal publishes the keys its webhooks are signed with (a signed webhook's result is used as is). */
  FAL_WEBHOOK_JWKS_URL: Joi.string()
    .uri({ scheme: ['https'] })
    .default('https://rest.alpha.fal.ai/.well-known/jwks.json'),
  /** JSON override of the upstream endpoint map (per model, per mode). */
  FAL_ENDPOINTS_JSON: Joi.string().optional(),
  /** Timeout of one HTTP call to the provider, ms. */
  PROVIDER_HTTP_TIMEOUT_MS: Joi.number().integer().min(100).default(30_000),
  /** Signs the per-job callback URL given to the provider (any long random string). */
  PROVIDER_CALLBACK_SECRET: Joi.string().min(16).default(DEV_CALLBACK_SECRET),
  /** Scratch directory of the local provider's renders. */
  LOCAL_WORK_DIR: Joi.string().default('.data/local-provider'),
  /** Local renders running at once. */
  LOCAL_RENDER_CONCURRENCY: Joi.number().integer().min(1).max(64).default(2),
  /** Longest one local render may take, ms. */
  LOCAL_RENDER_TIMEOUT_MS: Joi.number().integer().min(1000).default(300_000),
  /** ffmpeg binary (else ffmpeg-static if installed, else ffmpeg on PATH). */
  FFMPEG_PATH: Joi.string().optional(),
  /** A job still processing after this long fails and is refunded, ms (15 min). */
  JOB_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .default(15 * 60_000),
  /** Jobs older than this are deleted, with their media, and answer 404. */
  JOB_RETENTION_DAYS: Joi.number().min(0.0001).default(30),
  /** How often a processing job is polled, ms. */
  POLL_INTERVAL_MS: Joi.number().integer().min(50).default(2000),
  /** Jobs claimed per poll round (per replica). */
  POLL_BATCH: Joi.number().integer().min(1).max(500).default(20),
  /**
   * The poller's status calls to one upstream in any one second, per replica, for providers without
   * their own status_calls_per_second (0: no limit). Real upstreams rate-limit their status calls.
   */
  STATUS_CALLS_PER_SECOND: Joi.number().integer().min(0).max(100_000).default(100),
  /** A job left in "submitting" this long (a crash mid-submit) is refunded by the sweeper, ms. */
  SUBMIT_STUCK_AFTER_MS: Joi.number().integer().min(100).default(120_000),
  /** How often the sweeper runs (stuck submits, pending refunds, retention), ms. */
  SWEEP_INTERVAL_MS: Joi.number().integer().min(50).default(10_000),
  /** Let reference URLs reach private addresses (tests and local development only). */
  ALLOW_PRIVATE_URLS: Joi.boolean().default(false),
  /** Largest reference image fetched, bytes. */
  REFERENCE_MAX_BYTES: Joi.number()
    .integer()
    .min(1)
    .default(20 * 1024 * 1024),
  /** Longest a reference fetch may take, ms. */
  REFERENCE_TIMEOUT_MS: Joi.number().integer().min(100).default(15_000),
  /** Largest result file copied from an upstream provider, bytes. */
  RESULT_MAX_BYTES: Joi.number()
    .integer()
    .min(1)
    .default(512 * 1024 * 1024),
  /** Let NODE_ENV=production route jobs to the local provider (placeholder media, charged as real): demos only. */
  ALLOW_LOCAL_PROVIDER: Joi.boolean().default(false),
  /** Fault injection for tests: named points where the process kills itself (faults.ts; e.g. after-charge). */
  FAULT_POINTS: Joi.string()
    // Unset or empty: no points, as a list (an allowed '' would skip the custom rule and stay a string).
    .empty('')
    .default(() => [])
    .custom((v: string) => {
      // A misspelt point would silently inject nothing: refuse it.
      const points = csv(v);
      const unknown = points.find((p) => !isFaultPoint(p));
      if (unknown === undefined) return points;
      // The production build carries no fault points at all (faults.production.ts).
      if (!FAULT_POINTS.length) throw new Error('this build has no fault injection (a production build)');
      throw new Error(`unknown fault point ${unknown} (known: ${FAULT_POINTS.join(', ')})`);
    }),
});

/** The development default is refused in production (naming it); elsewhere main.ts warns about it. */
export function loadJobsConfig(env: NodeJS.ProcessEnv = process.env): JobsConfig {
  const config = loadConfig(jobsConfigSchema, env);
  refuseDevelopmentSecrets(config, {
    PROVIDER_CALLBACK_SECRET: config.PROVIDER_CALLBACK_SECRET === DEV_CALLBACK_SECRET,
  });
  refuseTestSwitches(config, {
    FAULT_POINTS: config.FAULT_POINTS.length > 0,
    ALLOW_PRIVATE_URLS: config.ALLOW_PRIVATE_URLS,
  });
  // Checked here, at start-up: a bad document stops the service naming the problem.
  const doc = readProvidersDocument(config);
  config.routing = doc
    ? parseProvidersDocument(doc, env)
    : shorthandRouting(config.PROVIDER, { apiKey: config.FAL_KEY, queueUrl: config.FAL_QUEUE_URL });
  refuseLocalProviderInProduction(config, doc !== null);
  return config;
}

/**
 * The local provider draws placeholder media and is charged as real generations: production
 * refuses it (as the only provider or as a route of the document) unless ALLOW_LOCAL_PROVIDER=true.
 */
function refuseLocalProviderInProduction(config: JobsConfig, fromDocument: boolean): void {
  if (config.NODE_ENV !== 'production' || config.ALLOW_LOCAL_PROVIDER) return;
  const local = [...config.routing.providers.values()].filter((p) => p.type === 'local').map((p) => p.name);
  if (!local.length) return;
  const where = fromDocument
    ? `the providers document routes jobs to the local provider (providers.${local.join(', providers.')})`
    : 'PROVIDER=local (no providers document: PROVIDERS_FILE or PROVIDERS_JSON)';
  throw new ConfigError(
    `Invalid configuration:\n  ALLOW_LOCAL_PROVIDER: ${where} with NODE_ENV=production: the local provider makes placeholder media charged as real; configure real providers (docs/providers.md) or set ALLOW_LOCAL_PROVIDER=true for a demo`,
  );
}
