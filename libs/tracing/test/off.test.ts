import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs `startTracing` in a fresh node process; resolves what it returned and which OpenTelemetry modules got loaded. */
async function startIn(settings: Record<string, unknown>): Promise<{ started: boolean; loaded: string[] }> {
  const script = `
    const { startTracing } = require(${JSON.stringify(path.join(__dirname, '..', 'src'))});
    startTracing('billing', ${JSON.stringify(settings)}).then(async (tracing) => {
      const loaded = Object.keys(require.cache).filter((f) => f.includes('@opentelemetry'))
        .map((f) => f.replace(/.*node_modules\\/(@opentelemetry\\/[^/]+).*/, '$1'));
      await tracing?.shutdown();
      console.log(JSON.stringify({ started: tracing !== null, loaded: [...new Set(loaded)].sort() }));
    });`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', script], { timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { started: boolean; loaded: string[] };
}

describe('startTracing', () => {
  it('loads nothing of OpenTelemetry when no OTLP endpoint is set, or when the SDK is disabled', async () => {
    expect(await startIn({})).toEqual({ started: false, loaded: [] });
    expect(await startIn({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: true })).toEqual({
      started: false,
      loaded: [],
    });
  });

  it('starts the SDK with its instrumentations when an endpoint is set', async () => {
    const { started, loaded } = await startIn({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces',
    });
    expect(started).toBe(true);
    expect(loaded).toEqual(
      expect.arrayContaining([
        '@opentelemetry/sdk-node',
        '@opentelemetry/instrumentation-amqplib',
        '@opentelemetry/instrumentation-express',
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/instrumentation-pg',
      ]),
    );
  });
});
