import fs from 'node:fs';
import path from 'node:path';
import { composeConfig, HAS_COMPOSE, parseCompose } from './support/compose';
import { REPO_ROOT, SERVICES } from './support/paths';

type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const text = fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
const compose = parseCompose(text) as AnyObj;
const envExample = fs.readFileSync(path.join(REPO_ROOT, '.env.example'), 'utf8');

/** ${VAR...} names a compose text interpolates. */
const interpolated = (s: string): string[] =>
  s
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .flatMap((line) => [...line.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]));

describe('docker-compose.yml', () => {
  (HAS_COMPOSE ? it : it.skip)(
    'loads in compose-go (docker-compose config: the Compose Specification schema and its semantic checks), every service built from the Dockerfile',
    () => {
      const res = composeConfig(text);
      if (!res.ok) throw new Error(res.errors.join('\n'));
      const services = res.model.services as AnyObj;
      for (const s of SERVICES) {
        expect(services[s].build).toMatchObject({ context: REPO_ROOT, dockerfile: 'Dockerfile', args: { SERVICE: s } });
        // Defaults interpolated as Compose does with no .env: the development tag.
        expect(services[s].image).toBe(`mediaforge/${s}:dev`);
        expect(services[s].stop_grace_period).toBe('30s');
      }
      expect(services.gateway.ports).toEqual([expect.objectContaining({ target: 8080, published: '8080' })]);
    },
  );

  (HAS_COMPOSE ? it : it.skip)(
    'refuses to load without the two secrets that have no usable default, naming each',
    () => {
      const res = composeConfig(text, {});
      expect(res.ok).toBe(false);
      const errors = res.ok ? '' : res.errors.join('\n');
      expect(errors).toMatch(/WEBHOOK_SECRET_KEY|PROVIDER_CALLBACK_SECRET/);
      for (const [name, others] of [
        ['WEBHOOK_SECRET_KEY', { PROVIDER_CALLBACK_SECRET: 'a-callback-secret-of-this-deployment' }],
        ['PROVIDER_CALLBACK_SECRET', { WEBHOOK_SECRET_KEY: 'ab'.repeat(32) }],
      ] as const) {
        const one = composeConfig(text, others);
        expect(one.ok ? '' : one.errors.join('\n')).toMatch(new RegExp(`set ${name} in \\.env`));
      }
    },
  );

  it('runs Postgres, RabbitMQ, MinIO and the six services, each with a healthcheck', () => {
    for (const s of ['postgres', 'rabbitmq', 'minio', ...SERVICES]) {
      expect(compose.services[s]).toBeDefined();
      expect(compose.services[s].healthcheck?.test).toBeDefined();
    }
  });

  it('publishes a port for the gateway only', () => {
    const publishing = Object.entries(compose.services as AnyObj)
      .filter(([, s]) => s.ports)
      .map(([n]) => n);
    expect(publishing).toEqual(['gateway']);
  });

  it('starts the services after healthy infrastructure (depends_on conditions)', () => {
    for (const s of SERVICES) {
      const deps = compose.services[s].depends_on as AnyObj;
      expect(deps.postgres.condition).toBe('service_healthy');
      expect(deps.rabbitmq.condition).toBe('service_healthy');
    }
    for (const s of ['gateway', 'jobs', 'editor-agent', 'export-renderer']) {
      expect(compose.services[s].depends_on.minio.condition).toBe('service_healthy');
      expect(compose.services[s].depends_on['minio-init'].condition).toBe('service_completed_successfully');
    }
  });

  it('connects each service as its own database user', () => {
    const users: Record<string, string> = {
      gateway: 'gateway_svc',
      billing: 'billing_svc',
      jobs: 'jobs_svc',
      'editor-agent': 'editor_svc',
      'export-renderer': 'exports_svc',
      'webhook-dispatcher': 'webhooks_svc',
    };
    for (const s of SERVICES)
      expect(compose.services[s].environment.DATABASE_URL).toMatch(new RegExp(`^postgres://${users[s]}:`));
  });

  it('builds one image per service from the Dockerfile with SERVICE', () => {
    for (const s of SERVICES) {
      expect(compose.services[s].build).toEqual({ context: '.', args: { SERVICE: s } });
      expect(compose.services[s].image).toMatch(new RegExp(`^mediaforge/${s}:`));
      expect(compose.services[s].init).toBe(true);
    }
  });

  it('gives the services the variables they need', () => {
    const env = (s: string): AnyObj => compose.services[s].environment;
    for (const s of ['gateway', 'jobs', 'editor-agent']) expect(env(s)).toHaveProperty('PUBLIC_BASE_URL');
    for (const s of ['gateway', 'jobs', 'editor-agent', 'export-renderer'])
      expect(env(s)).toMatchObject({ STORAGE_DRIVER: 's3', S3_ENDPOINT: 'http://minio:9000' });
    // Secrets with a published development default are required: no default, compose stops naming them.
    expect(env('webhook-dispatcher').WEBHOOK_SECRET_KEY).toMatch(
      /^\$\{WEBHOOK_SECRET_KEY:\?set WEBHOOK_SECRET_KEY [^}]+\}$/,
    );
    expect(env('jobs').PROVIDER_CALLBACK_SECRET).toMatch(
      /^\$\{PROVIDER_CALLBACK_SECRET:\?set PROVIDER_CALLBACK_SECRET [^}]+\}$/,
    );
    expect(env('jobs')).toHaveProperty('FAL_KEY');
    for (const v of ['LLM_BASE_URL', 'LLM_MODEL', 'LLM_API_KEY']) expect(env('editor-agent')).toHaveProperty(v);
    for (const v of [
      'EXPORT_TIMEOUT_MS',
      'EXPORT_RATE_LIMIT',
      'EXPORT_CONCURRENCY',
      'EXPORT_CACHE_DIR',
      'EXPORT_CACHE_MAX_BYTES',
      'EXPORT_FPS',
    ])
      expect(env('export-renderer')).toHaveProperty(v);
    for (const s of ['jobs', 'editor-agent', 'webhook-dispatcher'])
      expect(compose.services[s].env_file).toEqual([{ path: `./secrets/${s}.env`, required: false }]);
  });

  it('keeps data in named volumes', () => {
    expect(Object.keys(compose.volumes).sort()).toEqual([
      'export-cache',
      'minio-data',
      'postgres-data',
      'rabbitmq-data',
    ]);
  });

  it('documents every interpolated variable in .env.example', () => {
    const documented = new Set([...envExample.matchAll(/^#?\s*([A-Z0-9_]+)=/gm)].map((m) => m[1]));
    const missing = [...new Set(interpolated(text))].filter((v) => !documented.has(v));
    expect(missing).toEqual([]);
  });

  it('marks in .env.example the variables compose requires (at development placeholders) and every development placeholder', () => {
    const lines = envExample.split('\n');
    /** The comment block above a variable's line (variable lines just above it skipped: one comment may cover several). */
    const commentAbove = (i: number): string => {
      let j = i - 1;
      while (j >= 0 && /^[A-Z0-9_]+=/.test(lines[j])) j--;
      const block: string[] = [];
      // Up to a bare '#' or a section header: the comment of this variable, not of its section.
      for (; j >= 0 && lines[j].startsWith('#') && lines[j] !== '#' && !lines[j].startsWith('# ---'); j--)
        block.unshift(lines[j]);
      return block.join(' ');
    };
    const required = [...new Set([...text.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]))].sort();
    expect(required).toEqual(['PROVIDER_CALLBACK_SECRET', 'WEBHOOK_SECRET_KEY']);
    for (const v of required) {
      const i = lines.findIndex((l) => l.startsWith(`${v}=`));
      expect([v, i > 0]).toEqual([v, true]);
      expect(commentAbove(i)).toMatch(/^# REQUIRED\..*DEVELOPMENT PLACEHOLDER/);
    }
    const credentials = lines
      .map((line, i) => ({ m: /^([A-Z0-9_]*(PASSWORD|USER))=(.+)$/.exec(line), i }))
      .filter(({ m }) => m);
    expect(credentials.length).toBeGreaterThanOrEqual(10);
    for (const { m, i } of credentials)
      expect([m![1], commentAbove(i)]).toEqual([m![1], expect.stringMatching(/Development placeholder/)]);
    // The local provider is a demo: its switch says so, and compose defaults it to off.
    expect(commentAbove(lines.indexOf('ALLOW_LOCAL_PROVIDER=true'))).toMatch(/^# DEMO setting/);
    expect(compose.services.jobs.environment.ALLOW_LOCAL_PROVIDER).toBe('${ALLOW_LOCAL_PROVIDER:-false}');
  });

  it('keeps env files and secrets out of the image build context', () => {
    const ignore = fs.readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['.env', '.env.*', 'secrets', '**/node_modules', '.git']) expect(ignore).toContain(p);
  });
});
