/**
 * The production build (scripts/build): each service's dist/ copied away from the repository (no
 * node_modules to fall back on) runs with plain node: it migrates a fresh database, its stack
 * traces point at the TypeScript sources, and it carries exactly the files and packages it needs.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { createTestDatabase, createTestVhost, freePort, type TestDatabase } from '../../../libs/testing/src';
import { SERVICES } from '@mf/fleet';
import { buildService, REPO_ROOT, SERVICE_NAMES, type BuiltService } from '../services';

const run = promisify(execFile);
jest.setTimeout(180_000);

describe('production build of the services', () => {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-build-'));
  const built = new Map<string, BuiltService>();
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    for (const name of SERVICE_NAMES) built.set(name, await buildService(name, path.join(outside, name, 'dist')));
  });
  afterAll(async () => {
    await db?.drop();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it("lists no tsx (nor any other TypeScript tooling) among any service's production dependencies", () => {
    for (const name of SERVICE_NAMES) {
      const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'services', name, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
        scripts: Record<string, string>;
      };
      expect(Object.keys(pkg.dependencies).filter((d) => /^(tsx|typescript|ts-node|esbuild|@swc\/)/.test(d))).toEqual(
        [],
      );
      expect(pkg.scripts.start).toBe('node --enable-source-maps --max-semi-space-size=2 dist/main.js');
    }
  });

  it('carries no test hook: the fault points (a self-kill switch) are not in any bundle', () => {
    for (const name of SERVICE_NAMES) {
      const dist = built.get(name)!.dist;
      for (const bundle of Object.keys(built.get(name)!.bundles)) {
        const code = fs.readFileSync(path.join(dist, bundle), 'utf8');
        expect([name, bundle, /after-charge|fault injection: killing/.test(code)]).toEqual([name, bundle, false]);
      }
    }
  });

  it.each(SERVICE_NAMES.map((s) => [s]))('%s: dist/ alone migrates a fresh database with plain node', async (name) => {
    const dist = built.get(name)!.dist;
    const { stderr, stdout } = await run(
      process.execPath,
      ['--enable-source-maps', path.join(dist, 'main.js'), '--migrate-only'],
      {
        cwd: path.dirname(dist),
        env: { PATH: process.env.PATH, DATABASE_URL: db.url, LOG_LEVEL: 'info' },
        timeout: 60_000,
      },
    );
    expect(`${stdout}${stderr}`).toMatch(/"msg":"migrations done"/);
    const schema = {
      gateway: 'gateway',
      billing: 'billing',
      jobs: 'jobs',
      'editor-agent': 'editor',
      'export-renderer': 'exports',
      'webhook-dispatcher': 'webhooks',
    }[name];
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1',
        [schema],
      );
      expect(rows[0].n).toBeGreaterThan(1);
    } finally {
      await client.end();
    }
  });

  it('maps stack traces back to the TypeScript sources (linked source maps, no sources shipped)', async () => {
    const dist = built.get('billing')!.dist;
    const map = JSON.parse(fs.readFileSync(path.join(dist, 'main.js.map'), 'utf8')) as {
      sources: string[];
      sourcesContent?: unknown;
    };
    expect(map.sources).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/services\/billing\/src\/main\.ts$/),
        expect.stringMatching(/libs\/runtime\/src\//),
      ]),
    );
    expect(map.sourcesContent).toBeUndefined();
    // Library code stays unmapped (Node holds every mapping in memory): only our sources are used.
    const { decode } = await import('@jridgewell/sourcemap-codec');
    const used = new Set(
      decode((map as unknown as { mappings: string }).mappings).flatMap((line) =>
        line.flatMap((seg) => (seg[1] === undefined ? [] : [map.sources[seg[1]]])),
      ),
    );
    expect([...used].filter((s) => s.includes('node_modules/'))).toEqual([]);
    expect(used.size).toBeGreaterThan(10);
    expect(fs.readFileSync(path.join(dist, 'main.js'), 'utf8')).toMatch(/\/\/# sourceMappingURL=main\.js\.map\s*$/);
    // A bad variable fails at start; with --enable-source-maps the trace names the .ts file.
    const failed = await run(process.execPath, ['--enable-source-maps', path.join(dist, 'main.js')], {
      env: { PATH: process.env.PATH, DATABASE_URL: 'not a url', LOG_LEVEL: 'info' },
      timeout: 30_000,
    }).then(
      () => null,
      (e: { stdout: string; stderr: string; code: number }) => e,
    );
    expect(failed?.code).toBe(1);
    const logged = JSON.parse(`${failed?.stdout}${failed?.stderr}`.trim().split('\n')[0]) as {
      err: { type: string; stack: string };
    };
    expect(logged.err.type).toBe('ConfigError'); // class names kept (keepNames)
    expect(logged.err.stack).toMatch(/libs\/config\/src\/index\.ts:\d+:\d+/);
    expect(logged.err.stack).toMatch(/src\/config\.ts:\d+:\d+/);
  });

  it("gives every service a health probe (dist/probe.js) that passes on a 2xx, fails on a 503, and falls back to the service's default port", async () => {
    let ready = true;
    const health = http.createServer((req, res) => {
      res.writeHead(req.url === '/readyz' && ready ? 200 : 503).end();
    });
    await new Promise<void>((r) => health.listen(0, '127.0.0.1', r));
    const port = String((health.address() as { port: number }).port);
    const exitCode = (probe: string, env: NodeJS.ProcessEnv): Promise<[number, string]> =>
      run(process.execPath, [probe, '/readyz'], { env, cwd: outside }).then(
        ({ stdout }) => [0, stdout],
        (err: { code: number; stdout: string }) => [err.code, err.stdout],
      );
    try {
      for (const { name, port: defaultPort } of SERVICES) {
        const probe = path.join(built.get(name)!.dist, 'probe.js');
        ready = true;
        expect([name, await exitCode(probe, { PATH: process.env.PATH, PORT: port })]).toEqual([name, [0, '']]);
        ready = false;
        expect([name, await exitCode(probe, { PATH: process.env.PATH, PORT: port })]).toEqual([
          name,
          [1, 'GET /readyz: 503\n'],
        ]);
        expect([name, fs.readFileSync(probe, 'utf8')]).toEqual([
          name,
          expect.stringContaining(`process.env.PORT||${defaultPort}`),
        ]);
      }
    } finally {
      health.close();
    }
  });

  it('ships the gateway with its admin CLI, dashboard, API reference bundle and argon2 addon; every service with amqplib and the tracing packages beside its bundle', async () => {
    const gw = built.get('gateway')!;
    for (const f of [
      'main.js',
      'admin.js',
      'dashboard/index.html',
      'dashboard/app.js',
      'redoc.standalone.js',
      'package.json',
    ])
      expect(fs.existsSync(path.join(gw.dist, f))).toBe(true);
    expect(gw.packages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^@node-rs\/argon2-linux-x64-(gnu|musl)@/),
        expect.stringMatching(/^@node-rs\/argon2@/),
      ]),
    );
    for (const name of SERVICE_NAMES) {
      const { packages, dist } = built.get(name)!;
      const names = packages.map((p) => p.replace(/@[^@]+$/, ''));
      expect(names).toEqual(
        expect.arrayContaining([
          'amqplib',
          '@opentelemetry/api',
          '@opentelemetry/sdk-node',
          '@opentelemetry/instrumentation-amqplib',
          '@opentelemetry/instrumentation-express',
          '@opentelemetry/instrumentation-http',
          '@opentelemetry/instrumentation-pg',
        ]),
      );
      if (name !== 'gateway') expect(names.filter((n) => n.startsWith('@node-rs/'))).toEqual([]);
      // Nothing for a compiler or a debugger: no type declarations, no source maps.
      expect(names.filter((n) => n.startsWith('@types/'))).toEqual([]);
      const sdk = path.join(dist, 'node_modules', '@opentelemetry', 'sdk-node');
      expect(fs.readdirSync(path.join(sdk, 'build', 'src')).filter((f) => /\.(map|d\.ts)$/.test(f))).toEqual([]);
      // The SDK is required only when tracing is on: none of it is in the bundle V8 holds whole.
      expect(fs.readFileSync(path.join(dist, 'main.js'), 'utf8')).not.toMatch(/class (NodeSDK|BatchSpanProcessor)\b/);
    }
    const usage = await run(process.execPath, [path.join(gw.dist, 'admin.js')], {
      env: { PATH: process.env.PATH },
    }).catch((e: { stderr: string; code: number }) => e);
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringMatching(/key:create +--email E --scopes/) });
  });

  it('traces from dist/ alone when an OTLP endpoint is set (the SDK and its instrumentations load from dist/node_modules)', async () => {
    const spans: string[] = [];
    const collector = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        spans.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const vhost = await createTestVhost();
    const port = await freePort();
    const child = spawn(process.execPath, ['--enable-source-maps', path.join(built.get('billing')!.dist, 'main.js')], {
      cwd: outside,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        DATABASE_URL: db.url,
        AMQP_URL: vhost.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as { port: number }).port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      stdio: 'ignore',
    });
    try {
      const until = Date.now() + 60_000;
      let status = 0;
      while (status !== 404 && Date.now() < until) {
        status = await fetch(`http://127.0.0.1:${port}/traced`).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 404) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(404);
      while (!spans.some((b) => b.includes('"/traced"')) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
      const exported = spans.find((b) => b.includes('"/traced"'));
      expect(exported).toMatch(/"service\.name","value":\{"stringValue":"billing"\}/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      collector.close();
      await vhost.drop();
    }
  });

  it('bundles one mime-db table per service, even where express and form-data each bring their own', () => {
    for (const name of SERVICE_NAMES) {
      const bundle = fs.readFileSync(path.join(built.get(name)!.dist, 'main.js'), 'utf8');
      // A media type only mime-db lists, once per copy of the table.
      expect([name, bundle.split('"application/vnd.3gpp.pic-bw-large"').length - 1]).toEqual([name, 1]);
    }
  });

  it('keeps one source map mapping per run of the same TypeScript line (file and line, not every column)', async () => {
    const { decode } = await import('@jridgewell/sourcemap-codec');
    const map = JSON.parse(fs.readFileSync(path.join(built.get('jobs')!.dist, 'main.js.map'), 'utf8')) as {
      mappings: string;
    };
    const lines = decode(map.mappings);
    const repeats = lines.flatMap((segs) =>
      segs.filter((seg, i) => i > 0 && seg.length > 1 && segs[i - 1][1] === seg[1] && segs[i - 1][2] === seg[2]),
    );
    expect(repeats).toEqual([]);
    expect(lines.flat().length).toBeGreaterThan(1000);
  });
});
