import Joi from 'joi';

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
  const { value, error } = schema.validate(env, { abortEarly: false, allowUnknown: true, stripUnknown: true, convert: true });
  if (error) {
    const lines = error.details.map((d) => `  ${d.path.join('.')}: ${d.message.replace(/"/g, '')}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return value as T;
}

/** Variables every service shares. */
export const commonEnv = {
  /** Postgres connection string; the service only touches its own schema. */
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }).default('postgres://postgres@127.0.0.1:5432/mediaforge'),
  /** RabbitMQ connection string (vhost included). */
  AMQP_URL: Joi.string().uri({ scheme: ['amqp', 'amqps'] }).default('amqp://guest:guest@127.0.0.1:5672'),
  /** pino level: trace, debug, info, warn, error, fatal, silent. */
  LOG_LEVEL: Joi.string().valid('trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent').default('info'),
  /** Declare the broker queues as quorum queues (replicated RabbitMQ clusters); decide before the first deploy. */
  AMQP_QUORUM_QUEUES: Joi.boolean().default(false),
  /** Default timeout of a request/reply call to another service, in ms. */
  RPC_TIMEOUT_MS: Joi.number().integer().min(100).max(600_000).default(5000),
  /** Max time a graceful shutdown may take before the process exits anyway, in ms. */
  SHUTDOWN_TIMEOUT_MS: Joi.number().integer().min(100).default(10_000),
};

/** Parses a comma-separated list of values. */
export function csv(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** The configuration every service has. */
export interface ServiceEnv {
  PORT: number;
  DATABASE_URL: string;
  AMQP_URL: string;
  AMQP_QUORUM_QUEUES: boolean;
  LOG_LEVEL: string;
  RPC_TIMEOUT_MS: number;
  SHUTDOWN_TIMEOUT_MS: number;
}

/** commonEnv plus PORT with the service's own default. */
export function serviceEnv(defaultPort: number) {
  return {
    ...commonEnv,
    /** HTTP port: /healthz, /readyz, /metrics (and the public API on the gateway). */
    PORT: Joi.number().port().default(defaultPort),
  };
}
