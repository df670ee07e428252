import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@mf/fleet';
import { freshTestEnv, type TestEnv } from '@mf/testing';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The README's first command, as a newcomer runs it: it prints a key that works, Ctrl-C stops all. */
describe('npm start (the one-command start)', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await freshTestEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('starts the fleet, prints the base URL and a working API key, and stops cleanly on Ctrl-C', async () => {
    const ports = {
      PORT: 0,
      BILLING_PORT: 0,
      JOBS_PORT: 0,
      EDITOR_AGENT_PORT: 0,
      EXPORT_RENDERER_PORT: 0,
      WEBHOOK_DISPATCHER_PORT: 0,
    };
    for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
    const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mf-start-')), 'demo-key.json');
    const child = spawn('npm', ['start'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
        DATABASE_URL: env.databaseUrl,
        AMQP_URL: env.amqpUrl,
        PUBLIC_BASE_URL: `http://127.0.0.1:${ports.PORT}`,
        DEMO_KEY_FILE: keyFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so "Ctrl-C" reaches npm, the script and the fleet
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));

    try {
      const until = Date.now() + 240_000;
      while (!/API key\s*:\s*mf_live_\w+/.test(output) && Date.now() < until && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 250));
      const key = /API key\s*:\s*(mf_live_\w+)/.exec(output)?.[1];
      // Without a key, what npm start printed (and how it ended) is the failure's explanation.
      if (!key) throw new Error(`no API key printed (exit ${child.exitCode ?? 'none'}):\n${output.slice(-4000)}`);
      expect(output).toContain(`base URL : http://127.0.0.1:${ports.PORT}`);

      const res = await fetch(`http://127.0.0.1:${ports.PORT}/api/v1/account`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        credits_remaining: 100000,
        api_key: {
          scopes: ['models:read', 'video:write', 'image:write', 'jobs:read', 'video-editor:write', 'video-editor:read'],
        },
      });
    } finally {
      // Ctrl-C in a terminal signals the whole foreground process group.
      process.kill(-child.pid!, 'SIGINT');
    }
    // Every process of the group ends (npm itself dies of the signal, as it does at a terminal)...
    const until = Date.now() + 60_000;
    while (groupAlive(child.pid!) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    expect(groupAlive(child.pid!)).toBe(false);
    // ...after each of the six services went through its graceful shutdown.
    const stopped = output.split('\n').filter((l) => /\| .*INFO: stopped/.test(l));
    expect(stopped).toHaveLength(6);
    await expect(fetch(`http://127.0.0.1:${ports.PORT}/healthz`)).rejects.toThrow();
  }, 300_000);
});
