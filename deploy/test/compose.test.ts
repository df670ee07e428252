import fs from 'node:fs';
import path from 'node:path';
import { composeErrors, parseCompose } from './support/compose';
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
  it('validates against the Compose specification schema (deploy/schemas/compose-spec.json)', () => {
    expect(composeErrors(text)).toEqual([]);
  });

  it('runs Postgres, RabbitMQ, MinIO and the six services, each with a healthcheck', () => {
    for (const s of ['postgres', 'rabbitmq', 'minio', ...SERVICES]) {
      expect(compose.services[s]).toBeDefined();
      expect(compose.services[s].healthcheck?.test).toBeDefined();
    }
  });

  it('publishes a port for the gateway only', () => {
    const publishing = Object.entries(compose.services as AnyObj).filter(([, s]) => s.ports).map(([n]) => n);
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
    const users: Record<string, string> = { gateway: 'gateway_svc', billing: 'billing_svc', jobs: 'jobs_svc', 'editor-agent': 'editor_svc', 'export-renderer': 'exports_svc', 'webhook-dispatcher': 'webhooks_svc' };
    for (const s of SERVICES) expect(compose.services[s].environment.DATABASE_URL).toMatch(new RegExp(`^postgres://${users[s]}:`));
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
    for (const s of ['gateway', 'jobs', 'editor-agent', 'export-renderer']) expect(env(s)).toMatchObject({ STORAGE_DRIVER: 's3', S3_ENDPOINT: 'http://minio:9000' });
    expect(env('webhook-dispatcher').WEBHOOK_SECRET_KEY).toMatch(/^\$\{WEBHOOK_SECRET_KEY:-[0-9a-f]{64}\}$/);
    expect(env('jobs')).toHaveProperty('PROVIDER_CALLBACK_SECRET');
    expect(env('jobs')).toHaveProperty('FAL_KEY');
    for (const v of ['LLM_BASE_URL', 'LLM_MODEL', 'LLM_API_KEY']) expect(env('editor-agent')).toHaveProperty(v);
    for (const v of ['EXPORT_TIMEOUT_MS', 'EXPORT_RATE_LIMIT', 'EXPORT_CONCURRENCY', 'EXPORT_CACHE_DIR', 'EXPORT_CACHE_MAX_BYTES', 'EXPORT_FPS']) expect(env('export-renderer')).toHaveProperty(v);
    for (const s of ['jobs', 'editor-agent', 'webhook-dispatcher']) expect(compose.services[s].env_file).toEqual([{ path: `./secrets/${s}.env`, required: false }]);
  });

  it('keeps data in named volumes', () => {
    expect(Object.keys(compose.volumes).sort()).toEqual(['export-cache', 'minio-data', 'postgres-data', 'rabbitmq-data']);
  });

  it('documents every interpolated variable in .env.example', () => {
    const documented = new Set([...envExample.matchAll(/^#?\s*([A-Z0-9_]+)=/gm)].map((m) => m[1]));
    const missing = [...new Set(interpolated(text))].filter((v) => !documented.has(v));
    expect(missing).toEqual([]);
  });

  it('keeps env files and secrets out of the image build context', () => {
    const ignore = fs.readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['.env', '.env.*', 'secrets', '**/node_modules', '.git']) expect(ignore).toContain(p);
  });
});
