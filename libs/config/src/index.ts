import Joi from 'joi';
import net from 'node:net';

export { Joi };

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the environment against a service's schema once, at start-up. The error names the
 * offending variable so a misconfigured deployment fails loudly and early.
 * Unknown variables are ignored (the environment holds far more than ours).
 */
export function loadConfig<T>(schema: Joi.ObjectSchema<T>, env: NodeJS.ProcessEnv = process.env): T {
  const result = schema.validate(env, {
    abortEarly: false,
    allowUnknown: true,
    stripUnknown: true,
    convert: true,
  });
  if (result.error) {
    const lines = result.error.details.map((d) => `  ${d.path.join('.')}: ${d.message.replace(/"/g, '')}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.value;
}

/**
 * OpenTelemetry's standard variables that decide whether and how a service traces. The SDK reads
 * them (and the other OTEL_* variables) from the environment itself; they are checked here so a
 * bad value stops the service at start, naming it. Tracing is on when an OTLP endpoint is set.
 */
function tracingEnv() {
  const otlpUrl = Joi.string().uri({ scheme: ['http', 'https'] });
  return {
    /** OTLP endpoint of every signal (`http://collector:4318`); setting it (or the traces one) turns tracing on. */
    OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
    /** OTLP endpoint of traces only, the whole URL (`http://collector:4318/v1/traces`). */
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl,
    /** How spans are sent: http/protobuf (the default), http/json or grpc. */
    OTEL_EXPORTER_OTLP_PROTOCOL: Joi.string().valid('http/protobuf', 'http/json', 'grpc'),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: Joi.string().valid('http/protobuf', 'http/json', 'grpc'),
    /** The service name on its spans; the service's own name when unset. */
    OTEL_SERVICE_NAME: Joi.string(),
    /** Which traces are kept (parentbased_always_on by default; with a ratio in OTEL_TRACES_SAMPLER_ARG). */
    OTEL_TRACES_SAMPLER: Joi.string().valid(
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ),
    /** true: no tracing even with an endpoint set. */
    OTEL_SDK_DISABLED: Joi.boolean(),
  };
}

/** Variables every service shares. */
export const commonEnv = {
  /** `production` in the images: secrets left at their development defaults then stop the service. */
  NODE_ENV: Joi.string().default('development'),
  /** Postgres connection string; the service only touches its own schema. */
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .default('postgres://postgres@127.0.0.1:5432/mediaforge'),
  /**
   * RabbitMQ connection string (vhost included), or a comma-separated list of a cluster's nodes: the
   * bus connects to the first that answers and moves to the next when its connection drops.
   */
  AMQP_URL: Joi.string()
    .custom((value: string) => amqpNodeList(value), 'list of AMQP URLs')
    .default('amqp://guest:guest@127.0.0.1:5672'),
  /** pino level: trace, debug, info, warn, error, fatal, silent. */
  LOG_LEVEL: Joi.string().valid('trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent').default('info'),
  /** Declare the broker queues as quorum queues (replicated RabbitMQ clusters); decide before the first deploy. */
  AMQP_QUORUM_QUEUES: Joi.boolean().default(false),
  /**
   * Longest wait between two attempts to reach the broker, ms: the back-off doubles from 1 s up to
   * it. Tests that restart their broker lower it, so the fleet is back soon after the broker is.
   */
  AMQP_RECONNECT_MAX_MS: Joi.number().integer().min(1000).max(600_000).default(60_000),
  /** Default timeout of a request/reply call to another service, in ms. */
  RPC_TIMEOUT_MS: Joi.number().integer().min(100).max(600_000).default(5000),
  /** Max time a graceful shutdown may take before the process exits anyway, in ms. */
  SHUTDOWN_TIMEOUT_MS: Joi.number().integer().min(100).default(10_000),
  /**
   * Longest a client may take to send a whole request (headers and body), ms; slower ones get 408.
   * Only reading the request: a long answer (an editor turn, an export) is not limited by it.
   */
  REQUEST_TIMEOUT_MS: Joi.number().integer().min(100).max(600_000).default(30_000),
  /** Longest a client may take to send the request headers, ms (at most REQUEST_TIMEOUT_MS). */
  HEADERS_TIMEOUT_MS: Joi.number().integer().min(100).max(Joi.ref('REQUEST_TIMEOUT_MS')).default(10_000),
  /**
   * Which proxies' X-Forwarded-For to believe for the client's address (express's `trust proxy`):
   * false (default: the socket's address), a hop count (1 = the ingress in front), or addresses
   * and subnets (`loopback`, `10.0.0.0/8`, ...). Set it only when every request comes through them.
   */
  TRUST_PROXY: Joi.string()
    .default(false)
    .custom((value: string) => parseTrustProxy(value), 'trust proxy setting'),
  ...tracingEnv(),
};

const amqpUrl = Joi.string().uri({ scheme: ['amqp', 'amqps'] });

/** Checks each URL of a comma-separated AMQP_URL; throws naming the bad one. Keeps the value as given. */
function amqpNodeList(value: string): string {
  const nodes = csv(value);
  if (!nodes.length) throw new Error('must name at least one amqp:// or amqps:// URL');
  for (const node of nodes) {
    if (amqpUrl.validate(node).error) throw new Error(`not an amqp:// or amqps:// URL: ${node}`);
  }
  return value;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** A TRUST_PROXY value as express takes it; throws naming the bad part. */
export function parseTrustProxy(raw: string): boolean | number | string[] {
  const v = raw.trim();
  if (v === 'false' || v === '') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  const parts = v
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const p of parts) {
    const [addr, bits, extra] = p.split('/');
    const ok =
      PROXY_NAMES.has(p) ||
      (extra === undefined && net.isIP(addr) !== 0 && (bits === undefined || /^\d{1,3}$/.test(bits)));
    if (!ok) throw new Error(`not an address, subnet, hop count, true or false: ${p}`);
  }
  return parts;
}

/**
 * Secrets whose development default is published in the source code: with NODE_ENV=production a
 * service refuses to start on one of them, naming it (`atDefault` says which are at their default).
 * Elsewhere the service starts, and the caller warns.
 */
export function refuseDevelopmentSecrets(config: { NODE_ENV: string }, atDefault: Record<string, boolean>): string[] {
  const left = Object.entries(atDefault)
    .filter(([, isDefault]) => isDefault)
    .map(([name]) => name);
  if (left.length && config.NODE_ENV === 'production') {
    throw new ConfigError(
      `Invalid configuration:\n${left.map((n) => `  ${n}: is the development default, published in the source code; set a secret of your own (NODE_ENV=production)`).join('\n')}`,
    );
  }
  return left;
}

/**
 * Switches for tests and local development (fault injection, private or plain-http destinations):
 * with NODE_ENV=production a service refuses to start with one of them on, naming it (`on` says
 * which are on). Production has no use for them, and each one opens a hole (a self-kill switch, a
 * way into the private network) if it is left on by mistake.
 */
export function refuseTestSwitches(config: { NODE_ENV: string }, on: Record<string, boolean>): void {
  const set = Object.entries(on)
    .filter(([, isOn]) => isOn)
    .map(([name]) => name);
  if (set.length && config.NODE_ENV === 'production') {
    throw new ConfigError(
      `Invalid configuration:\n${set.map((n) => `  ${n}: is for tests and local development only; unset it (NODE_ENV=production)`).join('\n')}`,
    );
  }
}

/** Parses a comma-separated list of values. */
export function csv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The configuration every service has. */
export interface ServiceEnv {
  NODE_ENV: string;
  PORT: number;
  DATABASE_URL: string;
  AMQP_URL: string;
  AMQP_QUORUM_QUEUES: boolean;
  AMQP_RECONNECT_MAX_MS: number;
  LOG_LEVEL: string;
  RPC_TIMEOUT_MS: number;
  SHUTDOWN_TIMEOUT_MS: number;
  REQUEST_TIMEOUT_MS: number;
  HEADERS_TIMEOUT_MS: number;
  TRUST_PROXY: boolean | number | string[];
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
  OTEL_SDK_DISABLED?: boolean;
}

/** commonEnv plus PORT with the service's own default. */
export function serviceEnv(defaultPort: number) {
  return {
    ...commonEnv,
    /** HTTP port: /healthz, /readyz, /metrics (and the public API on the gateway). */
    PORT: Joi.number().port().default(defaultPort),
  };
}
