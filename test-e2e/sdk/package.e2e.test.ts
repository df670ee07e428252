/**
 * @mediaforge/sdk as users get it: `npm pack` of sdk/ (which builds dist/), the tarball installed
 * into an empty directory outside the repository, then plain `node` (ESM import and CommonJS
 * require), the TypeScript compiler and `npx mediaforge` against the real fleet: generate, wait,
 * and verify a real signed webhook from the dispatcher.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@mf/fleet';
import { userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { startReceiver } from '../support/webhook-receiver';

const run = promisify(execFile);
const SDK_DIR = path.join(REPO_ROOT, 'sdk');

describe('the @mediaforge/sdk tarball, installed into an empty directory', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-sdk-pkg-'));
  const app = path.join(work, 'app');
  let tarball: string;
  let fleet: PooledFleet;
  let user: TestUser;
  /** Runs a command in the consumer's directory with only PATH, HOME and the API settings. */
  const inApp = (cmd: string, args: string[], env: Record<string, string> = {}) =>
    run(cmd, args, {
      cwd: app,
      timeout: 120_000,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MEDIAFORGE_BASE_URL: fleet.baseUrl,
        MEDIAFORGE_API_KEY: user.key,
        ...env,
      },
    });

  beforeAll(async () => {
    // npm pack runs the package's prepack script: the tsup build into sdk/dist.
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: SDK_DIR, timeout: 120_000 });
    // The build's own output comes first on stdout; npm's JSON report is the array after it.
    const report = packed.stdout.slice(packed.stdout.search(/^\[$/m));
    tarball = path.join(work, (JSON.parse(report) as { filename: string }[])[0].filename);
    fs.mkdirSync(app);
    fs.writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
    );
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: app,
      timeout: 120_000,
    });
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'all', 10_000);
  }, 300_000);
  afterAll(async () => {
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('holds the build, its type declarations and the CLI, and no sources or tests', async () => {
    const { stdout } = await run('tar', ['tzf', tarball]);
    const files = stdout.trim().split('\n').sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/dist/index.js',
        'package/dist/index.mjs',
        'package/dist/index.d.ts',
        'package/dist/index.d.mts',
        'package/dist/cli.js',
      ]),
    );
    expect(files.filter((f) => /\.ts$/.test(f) && !/\.d\.m?ts$/.test(f))).toEqual([]);
    expect(files.filter((f) => /test/.test(f))).toEqual([]);
    const installed = JSON.parse(
      fs.readFileSync(path.join(app, 'node_modules/@mediaforge/sdk/package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(installed).toMatchObject({
      main: './dist/index.js',
      types: './dist/index.d.ts',
      bin: { mediaforge: './dist/cli.js' },
      dependencies: {},
    });
  });

  it('imports as ESM in plain node, generates an image and waits for it; a real webhook delivery verifies with CommonJS require', async () => {
    const receiver = await startReceiver();
    try {
      const secret = String(
        (await fleet.admin('webhook:set', '--key-id', String(user.keyId), '--url', receiver.url)).secret,
      );
      fs.writeFileSync(
        path.join(app, 'generate.mjs'),
        `import { MediaforgeClient, SDK_VERSION } from '@mediaforge/sdk';
const mf = new MediaforgeClient({ baseUrl: process.env.MEDIAFORGE_BASE_URL, apiKey: process.env.MEDIAFORGE_API_KEY });
const sub = await mf.generateImage({ prompt: 'a tarball test' });
const job = await mf.waitForJob(sub.job_id, { intervalMs: 200, timeoutMs: 60000 });
console.log(JSON.stringify({ version: SDK_VERSION, sub, job }));
`,
      );
      const generated = JSON.parse((await inApp(process.execPath, ['generate.mjs'])).stdout) as {
        version: string;
        sub: Record<string, unknown>;
        // The script's JSON output, asserted field by field below.
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        job: Record<string, any>;
      };
      expect(generated.version).toBe('0.1.0');
      expect(generated.sub).toMatchObject({ status: 'processing', credits_consumed: 50 });
      expect(generated.job).toMatchObject({ job_id: generated.sub.job_id, status: 'completed', type: 'image' });
      expect(generated.job.result.images).toHaveLength(1);

      const end = Date.now() + 30_000;
      while (!receiver.received.some((r) => r.headers['x-service-event'] === 'job.completed') && Date.now() < end)
        await new Promise((r) => setTimeout(r, 100));
      const delivery = receiver.received.find((r) => r.headers['x-service-event'] === 'job.completed')!;
      expect(delivery).toBeDefined();
      fs.writeFileSync(
        path.join(app, 'delivery.json'),
        JSON.stringify({ body: delivery.rawBody, headers: delivery.headers }),
      );
      fs.writeFileSync(
        path.join(app, 'verify.cjs'),
        `const { verifyWebhook, WebhookVerificationError } = require('@mediaforge/sdk');
const { body, headers } = require('./delivery.json');
const event = verifyWebhook({ payload: body, headers, secret: process.env.WEBHOOK_SECRET });
let tampered;
try { verifyWebhook({ payload: body.replace('"completed"', '"failed"'), headers, secret: process.env.WEBHOOK_SECRET }); } catch (e) { tampered = e instanceof WebhookVerificationError ? e.name : String(e); }
console.log(JSON.stringify({ event, tampered }));
`,
      );
      const verified = JSON.parse(
        (await inApp(process.execPath, ['verify.cjs'], { WEBHOOK_SECRET: secret })).stdout,
      ) as { event: Record<string, any>; tampered: string }; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(verified.event).toMatchObject({
        type: 'job.completed',
        data: { job_id: generated.sub.job_id, status: 'completed' },
      });
      expect(verified.tampered).toBe('WebhookVerificationError');
    } finally {
      await receiver.close();
    }
  });

  it('gives TypeScript consumers its types through the package exports (nodenext resolution)', async () => {
    fs.writeFileSync(
      path.join(app, 'typed.mts'),
      `import { MediaforgeClient, type Job } from '@mediaforge/sdk';
const mf = new MediaforgeClient({ baseUrl: 'http://localhost:8080', apiKey: 'k' });
export const wait: Promise<Job> = mf.waitForJob('job_1');
// @ts-expect-error generateImage needs a prompt
void mf.generateImage({});
`,
    );
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await inApp(process.execPath, [
      tsc,
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--types',
      'node',
      '--typeRoots',
      path.join(REPO_ROOT, 'node_modules', '@types'),
      'typed.mts',
    ]);
  });

  it('gives its types to a consumer without @types/node (types: [], the standard and DOM libraries only)', async () => {
    fs.writeFileSync(
      path.join(app, 'no-node.mts'),
      `import { MediaforgeClient, verifyWebhook, signWebhook, type Job } from '@mediaforge/sdk';
const mf = new MediaforgeClient({ baseUrl: 'http://localhost:8080', apiKey: 'k' });
export const wait: Promise<Job> = mf.waitForJob('job_1');
const body = new TextEncoder().encode('{}');
export const verified = verifyWebhook({ payload: body, headers: new Headers(), secret: 'whsec_x' });
export const signed: string = signWebhook('whsec_x', body);
`,
    );
    fs.writeFileSync(
      path.join(app, 'tsconfig.no-node.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom'],
          types: [],
          skipLibCheck: false,
        },
        files: ['no-node.mts'],
      }),
    );
    expect(fs.existsSync(path.join(app, 'node_modules', '@types', 'node'))).toBe(false);
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await inApp(process.execPath, [tsc, '-p', 'tsconfig.no-node.json']);
  });

  it('runs its CLI as npx mediaforge', async () => {
    const help = await inApp('npx', ['--no-install', 'mediaforge', '--help']);
    expect(help.stdout + help.stderr).toMatch(/Usage: mediaforge <command>/);
    const account = JSON.parse((await inApp('npx', ['--no-install', 'mediaforge', 'account'])).stdout) as Record<
      string,
      unknown
    >;
    expect(account).toMatchObject({ credits_remaining: expect.any(Number) });
    const job = JSON.parse(
      (await inApp('npx', ['--no-install', 'mediaforge', 'generate', 'image', '--prompt', 'from npx', '--wait']))
        .stdout,
    ) as Record<string, unknown>;
    expect(job).toMatchObject({ status: 'completed', type: 'image' });
  });
});
