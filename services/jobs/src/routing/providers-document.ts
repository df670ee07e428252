import fs from 'node:fs';
import path from 'node:path';
import { MODELS, type ModelId } from '@mf/catalog';
import { ConfigError, Joi } from '@mf/config';
import { PROVIDER_TYPES, type Mode, type ProviderType } from '../providers/provider';

/**
 * The providers document (PROVIDERS_FILE or PROVIDERS_JSON, docs/providers.md): which upstreams the
 * operator has, and per catalog model the ordered routes a job falls through. Secrets are named by
 * environment variable, never written in it. Without a document, PROVIDER=local|fal is the
 * one-provider shorthand of before.
 */

export interface BreakerSettings {
  /** Failures in a row that open the circuit (0: never opens). */
  failures: number;
  /** How long an open circuit skips the provider, ms. */
  cooldownMs: number;
}

export interface ProviderSpec {
  name: string;
  type: ProviderType;
  baseUrl?: string;
  /** The key itself, read from the variable the document names. */
  apiKey?: string;
  /** An attempt still running after this long fails, so the next route can try (ms). */
  attemptTimeoutMs?: number;
  breaker: BreakerSettings;
  /** replicate, openrouter: the signing secret of their webhooks, read from webhook_secret_env. */
  webhookSecret?: string;
  /** comfyui: where the workflow files are. */
  workflowsDir?: string;
  /** openai-images: the size sent per aspect ratio, overriding the model family's table. */
  sizes?: Record<string, string>;
  /** The poller's status calls to this upstream in any one second, per replica (unset: STATUS_CALLS_PER_SECOND). */
  statusCallsPerSecond?: number;
}

/**
 * What the operator pays the upstream for one request on a route, in US dollars: per image made, per
 * second of video made, per second of upstream compute (Replicate's metrics), per billed unit (fal's).
 */
export interface RoutePrice {
  per_image?: number;
  per_second?: number;
  per_compute_second?: number;
  per_unit?: number;
}

/** One route of a model: a provider and its upstream model per mode (`null`: every mode, the provider's default). */
export interface RouteSpec {
  provider: string;
  models: Partial<Record<Mode, string>> | null;
  /** The upstream's price on this route, when the document gives one. */
  price?: RoutePrice;
}

export interface RoutingConfig {
  providers: Map<string, ProviderSpec>;
  routes: Record<ModelId, RouteSpec[]>;
}

export const DEFAULT_BREAKER: BreakerSettings = { failures: 5, cooldownMs: 30_000 };

/** Modes each catalog model serves (its capabilities). */
export const MODEL_MODES = Object.fromEntries(MODELS.map((m) => [m.id, m.capabilities])) as Record<ModelId, Mode[]>;

/** Media each adapter can make; a route to a provider that cannot make its model's media is refused at start. */
const SERVES: Record<ProviderType, readonly ('video' | 'image')[]> = {
  local: ['video', 'image'],
  fal: ['video', 'image'],
  replicate: ['video', 'image'],
  openrouter: ['video'],
  'openai-images': ['image'],
  comfyui: ['video', 'image'],
};

/** Adapters that need no upstream model in a route: local renders itself, fal has its endpoint map. */
const MODEL_OPTIONAL: readonly ProviderType[] = ['local', 'fal'];
/** Adapters that cannot work without a key. */
const KEY_REQUIRED: readonly ProviderType[] = ['fal', 'replicate', 'openrouter'];

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const upstreamModel = Joi.string()
  .min(1)
  .max(300)
  .pattern(/^[^\s]+$/);

const providerSchema = Joi.object({
  type: Joi.string()
    .valid(...PROVIDER_TYPES)
    .required()
    .messages({ 'any.only': `unknown provider type {#value} (known: ${PROVIDER_TYPES.join(', ')})` }),
  base_url: Joi.string().uri({ scheme: ['http', 'https'] }),
  api_key_env: Joi.string().pattern(ENV_NAME),
  attempt_timeout_ms: Joi.number().integer().min(1000),
  status_calls_per_second: Joi.number().integer().min(1).max(100_000),
  breaker: Joi.object({
    failures: Joi.number().integer().min(1).max(1000),
    cooldown_ms: Joi.number().integer().min(100),
  }),
  webhook_secret_env: Joi.string().pattern(ENV_NAME),
  workflows_dir: Joi.string().min(1),
  sizes: Joi.object().pattern(Joi.string(), Joi.string().pattern(/^\d{2,5}x\d{2,5}$/)),
});

const routeSchema = Joi.object({
  provider: Joi.string().required(),
  model: Joi.alternatives(
    upstreamModel,
    Joi.object()
      .pattern(Joi.string().valid('text-to-video', 'image-to-video', 'text-to-image', 'image-edit'), upstreamModel)
      .min(1)
      .messages({
        'object.unknown': 'unknown mode {#key} (modes: text-to-video, image-to-video, text-to-image, image-edit)',
      }),
  ),
  cost: Joi.object({
    per_image: Joi.number().min(0),
    per_second: Joi.number().min(0),
    per_compute_second: Joi.number().min(0),
    per_unit: Joi.number().min(0),
  })
    .min(1)
    .messages({
      'object.unknown': 'unknown price {#key} (prices: per_image, per_second, per_compute_second, per_unit)',
    }),
});

const documentSchema = Joi.object({
  providers: Joi.object().pattern(Joi.string().pattern(NAME), providerSchema).min(1).required(),
  routes: Joi.object().pattern(Joi.string(), Joi.array().items(routeSchema).min(1).max(10)).required(),
}).unknown(false);

/** Reads the document named by the environment, or null when neither variable is set. */
export function readProvidersDocument(env: {
  PROVIDERS_FILE?: string;
  PROVIDERS_JSON?: string;
}): { text: string; source: string; yaml: boolean } | null {
  if (env.PROVIDERS_FILE && env.PROVIDERS_JSON)
    throw new ConfigError('Invalid configuration: set PROVIDERS_FILE or PROVIDERS_JSON, not both');
  if (env.PROVIDERS_JSON) return { text: env.PROVIDERS_JSON, source: 'PROVIDERS_JSON', yaml: false };
  if (!env.PROVIDERS_FILE) return null;
  let text: string;
  try {
    text = fs.readFileSync(env.PROVIDERS_FILE, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `Invalid configuration: PROVIDERS_FILE ${env.PROVIDERS_FILE} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  return { text, source: `PROVIDERS_FILE ${env.PROVIDERS_FILE}`, yaml: /\.ya?ml$/i.test(env.PROVIDERS_FILE) };
}

/**
 * Parses and checks a providers document; throws a ConfigError naming the problem (an unknown type,
 * a route to a provider that is not defined, a model without a route, a key variable not set).
 */
export function parseProvidersDocument(
  doc: { text: string; source: string; yaml: boolean },
  env: NodeJS.ProcessEnv,
  baseDir = process.cwd(),
): RoutingConfig {
  const fail = (problem: string): never => {
    throw new ConfigError(`Invalid configuration: ${doc.source}: ${problem}`);
  };
  let raw: unknown;
  try {
    raw = doc.yaml ? parseYaml(doc.text) : JSON.parse(doc.text);
  } catch (err) {
    fail(`not valid ${doc.yaml ? 'YAML' : 'JSON'} (${(err as Error).message.split('\n')[0]})`);
  }
  const checked = documentSchema.validate(raw, { abortEarly: true, convert: false });
  const error = checked.error;
  if (error) fail(`${error.details[0].path.join('.') || 'document'}: ${error.details[0].message.replace(/"/g, '')}`);
  const parsed = checked.value as {
    providers: Record<string, Record<string, unknown>>;
    routes: Record<string, { provider: string; model?: string | Record<string, string>; cost?: RoutePrice }[]>;
  };

  const providers = new Map<string, ProviderSpec>();
  for (const [name, p] of Object.entries(parsed.providers))
    providers.set(name, providerSpec(name, p, env, baseDir, fail));

  const routes = {} as Record<ModelId, RouteSpec[]>;
  for (const modelId of Object.keys(parsed.routes)) {
    if (!MODELS.some((m) => m.id === modelId))
      fail(`routes.${modelId}: unknown model (models: ${MODELS.map((m) => m.id).join(', ')})`);
  }
  for (const model of MODELS) {
    const list = parsed.routes[model.id];
    if (!list) fail(`model ${model.id} has no route`);
    routes[model.id] = list.map((r, i) => {
      const where = `routes.${model.id}[${i}]`;
      const spec = providers.get(r.provider);
      if (!spec) return fail(`${where}: provider ${r.provider} is not defined in providers`);
      if (r.cost && spec.type === 'local') fail(`${where}: a local route costs nothing upstream (no cost)`);
      const priced = r.cost ? { price: { ...r.cost } } : {};
      if (!SERVES[spec.type].includes(model.type)) fail(`${where}: a ${spec.type} provider cannot make ${model.type}s`);
      if (r.model === undefined) {
        if (!MODEL_OPTIONAL.includes(spec.type)) fail(`${where}: a ${spec.type} route needs a model`);
        return { provider: r.provider, models: null, ...priced };
      }
      if (typeof r.model === 'string')
        return {
          provider: r.provider,
          models: Object.fromEntries(MODEL_MODES[model.id].map((m) => [m, r.model as string])),
          ...priced,
        };
      const unusable = Object.keys(r.model).find((mode) => !MODEL_MODES[model.id].includes(mode as Mode));
      if (unusable)
        fail(`${where}: ${model.id} has no mode ${unusable} (its modes: ${MODEL_MODES[model.id].join(', ')})`);
      return { provider: r.provider, models: { ...r.model } as Partial<Record<Mode, string>>, ...priced };
    });
  }
  return { providers, routes };
}

function providerSpec(
  name: string,
  p: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  baseDir: string,
  fail: (problem: string) => never,
): ProviderSpec {
  const type = p.type as ProviderType;
  const secret = (field: 'api_key_env' | 'webhook_secret_env'): string | undefined => {
    const variable = p[field] as string | undefined;
    if (variable === undefined) return undefined;
    const v = env[variable];
    if (!v) fail(`providers.${name}.${field}: ${variable} is not set`);
    return v;
  };
  const apiKey = secret('api_key_env');
  if (KEY_REQUIRED.includes(type) && apiKey === undefined)
    fail(`providers.${name}: a ${type} provider needs api_key_env`);
  if (type === 'comfyui' && !p.workflows_dir) fail(`providers.${name}: a comfyui provider needs workflows_dir`);
  if (['replicate', 'openrouter', 'openai-images', 'comfyui'].includes(type) && !p.base_url)
    fail(`providers.${name}: a ${type} provider needs base_url`);
  const breaker = p.breaker as { failures?: number; cooldown_ms?: number } | undefined;
  return {
    name,
    type,
    baseUrl: (p.base_url as string | undefined)?.replace(/\/+$/, ''),
    apiKey,
    attemptTimeoutMs: p.attempt_timeout_ms as number | undefined,
    breaker: {
      failures: breaker?.failures ?? DEFAULT_BREAKER.failures,
      cooldownMs: breaker?.cooldown_ms ?? DEFAULT_BREAKER.cooldownMs,
    },
    webhookSecret: secret('webhook_secret_env'),
    workflowsDir: p.workflows_dir ? path.resolve(baseDir, p.workflows_dir as string) : undefined,
    sizes: p.sizes as Record<string, string> | undefined,
    statusCallsPerSecond: p.status_calls_per_second as number | undefined,
  };
}

/**
 * The routing of PROVIDER=local|fal without a document: one provider for every model, and no circuit
 * breaker (with one route there is nothing to fall through to, so it behaves exactly as before).
 */
export function shorthandRouting(provider: 'local' | 'fal', fal: { apiKey?: string; queueUrl: string }): RoutingConfig {
  const off: BreakerSettings = { failures: 0, cooldownMs: DEFAULT_BREAKER.cooldownMs };
  const spec: ProviderSpec =
    provider === 'fal'
      ? { name: 'fal', type: 'fal', baseUrl: fal.queueUrl, apiKey: fal.apiKey, breaker: off }
      : { name: 'local', type: 'local', breaker: off };
  const routes = Object.fromEntries(MODELS.map((m) => [m.id, [{ provider: spec.name, models: null }]])) as Record<
    ModelId,
    RouteSpec[]
  >;
  return { providers: new Map([[spec.name, spec]]), routes };
}

/** The YAML parser, loaded only for a YAML providers document (most deployments have none). */
function parseYaml(text: string): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
  const { parse } = require('yaml') as typeof import('yaml');
  return parse(text);
}
