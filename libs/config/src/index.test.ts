import { ConfigError, Joi, csv, loadConfig, serviceEnv, type ServiceEnv } from './index';

const schema = Joi.object<ServiceEnv>(serviceEnv(8080));

function loadError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(schema, env);
  } catch (err) {
    return err as ConfigError;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig', () => {
  it('applies the defaults to an empty environment', () => {
    expect(loadConfig(schema, {})).toEqual({
      NODE_ENV: 'development',
      PORT: 8080,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/mediaforge',
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
      AMQP_QUORUM_QUEUES: false,
      AMQP_RECONNECT_MAX_MS: 60_000,
      LOG_LEVEL: 'info',
      RPC_TIMEOUT_MS: 5000,
      SHUTDOWN_TIMEOUT_MS: 10_000,
      REQUEST_TIMEOUT_MS: 30_000,
      HEADERS_TIMEOUT_MS: 10_000,
      TRUST_PROXY: false,
    });
  });

  it('refuses a headers timeout longer than the request timeout, naming it', () => {
    expect(loadError({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' }).message).toMatch(/HEADERS_TIMEOUT_MS/);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['1', 1],
    ['loopback, 10.0.0.0/8', ['loopback', '10.0.0.0/8']],
    ['::1,fd00::/8', ['::1', 'fd00::/8']],
  ])('reads TRUST_PROXY=%s as express takes it', (raw, expected) => {
    expect(loadConfig(schema, { TRUST_PROXY: raw }).TRUST_PROXY).toEqual(expected);
  });

  it.each([['ingress.local'], ['10.0.0.0/8/1'], ['yes']])('refuses TRUST_PROXY=%s, naming the variable', (raw) => {
    expect(loadError({ TRUST_PROXY: raw }).message).toMatch(/TRUST_PROXY/);
  });

  it("takes a cluster's nodes as a comma-separated AMQP_URL", () => {
    const nodes = 'amqp://u:p@mq-0:5672/v, amqp://u:p@mq-1:5672/v,amqps://u:p@mq-2:5671/v';
    expect(loadConfig(schema, { AMQP_URL: nodes }).AMQP_URL).toBe(nodes);
  });

  it.each([['amqp://mq-0:5672,http://mq-1:5672'], [' , '], ['mq-0:5672']])(
    'refuses AMQP_URL=%s, naming the variable and the bad URL',
    (raw) => {
      expect(loadError({ AMQP_URL: raw }).message).toMatch(/AMQP_URL: .*(URL|amqp)/);
    },
  );

  it('uses the service-specific default port', () => {
    expect(loadConfig(Joi.object<ServiceEnv>(serviceEnv(3005)), {}).PORT).toBe(3005);
  });

  it('converts numeric strings to numbers', () => {
    const config = loadConfig(schema, { PORT: '9000', RPC_TIMEOUT_MS: '2500', SHUTDOWN_TIMEOUT_MS: '30000' });
    expect(config.PORT).toBe(9000);
    expect(config.RPC_TIMEOUT_MS).toBe(2500);
    expect(config.SHUTDOWN_TIMEOUT_MS).toBe(30_000);
  });

  it('keeps given values over the defaults', () => {
    const config = loadConfig(schema, {
      DATABASE_URL: 'postgresql://u:p@db:5432/x',
      AMQP_URL: 'amqps://u:p@mq:5671/vhost',
      LOG_LEVEL: 'silent',
    });
    expect(config.DATABASE_URL).toBe('postgresql://u:p@db:5432/x');
    expect(config.AMQP_URL).toBe('amqps://u:p@mq:5671/vhost');
    expect(config.LOG_LEVEL).toBe('silent');
  });

  it('ignores and drops unknown environment variables', () => {
    const config = loadConfig(schema, { PORT: '8081', HOME: '/root', PATH: '/usr/bin', SOMETHING_ELSE: 'x' });
    expect(config.PORT).toBe(8081);
    expect(config).not.toHaveProperty('HOME');
    expect(config).not.toHaveProperty('PATH');
    expect(config).not.toHaveProperty('SOMETHING_ELSE');
  });

  it('throws a ConfigError naming PORT when PORT is not a number', () => {
    const err = loadError({ PORT: 'abc' });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.name).toBe('ConfigError');
    expect(err.message).toMatch(/^Invalid configuration:\n/);
    expect(err.message).toContain('PORT');
    expect(err.message).not.toContain('DATABASE_URL');
  });

  it('throws a ConfigError naming PORT when PORT is out of range', () => {
    const err = loadError({ PORT: '70000' });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('PORT');
  });

  it('throws a ConfigError naming DATABASE_URL when it is not a URL', () => {
    const err = loadError({ DATABASE_URL: 'not-a-url' });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('DATABASE_URL');
    expect(err.message).not.toContain('PORT');
  });

  it('throws a ConfigError naming DATABASE_URL when its scheme is not postgres', () => {
    const err = loadError({ DATABASE_URL: 'mysql://u@db/x' });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('DATABASE_URL');
  });

  it('throws a ConfigError naming LOG_LEVEL when the level is unknown', () => {
    const err = loadError({ LOG_LEVEL: 'verbose' });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('LOG_LEVEL');
  });

  it('names every bad variable at once', () => {
    const err = loadError({ PORT: 'abc', DATABASE_URL: 'not-a-url', RPC_TIMEOUT_MS: '5' });
    expect(err.message).toContain('PORT');
    expect(err.message).toContain('DATABASE_URL');
    expect(err.message).toContain('RPC_TIMEOUT_MS');
    expect(err.message.split('\n')).toHaveLength(4);
  });
});

describe('csv', () => {
  it('splits, trims and drops empty items', () => {
    expect(csv(' a, b ,,c ,')).toEqual(['a', 'b', 'c']);
  });

  it('returns an empty list for undefined or empty input', () => {
    expect(csv(undefined)).toEqual([]);
    expect(csv('')).toEqual([]);
  });
});
