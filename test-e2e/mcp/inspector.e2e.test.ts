import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT } from '@mf/fleet';
import { strictProblems } from '../../services/gateway/test/support/strict-schemas';
import { userWithKey } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';

/** The MCP inspector's own CLI (a dev dependency: it runs offline), as a client would run it. */
const INSPECTOR = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

function inspect(args: string[], home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Its own home: the inspector keeps a catalog and storage there.
    const env = { ...process.env, HOME: home, NO_COLOR: '1' };
    execFile(process.execPath, [INSPECTOR, '--cli', ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the MCP endpoint under the MCP inspector', () => {
  let fleet: PooledFleet;
  let home: string;

  beforeAll(async () => {
    fleet = await pooledFleet();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-inspector-'));
  }, 180_000);
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it('lists the tools through the inspector CLI with --strict: no schema error, every schema strict', async () => {
    const user = await userWithKey(fleet, 'all');
    const url = `${fleet.baseUrl}/api/mcp`;
    const auth = `Authorization: Bearer ${user.key}`;
    const run = await inspect([url, '--header', auth, '--method', 'tools/list', '--strict', '--format', 'json'], home);
    // --strict exits 6 on an error-severity schema problem; portability warnings (nullable types) are not errors.
    expect({ code: run.code, summary: /\d+ errors?/.exec(run.stderr)?.[0] }).toEqual({ code: 0, summary: '0 errors' });
    const tools = (JSON.parse(run.stdout) as { result: { tools: Tool[] } }).result.tools;
    expect(tools).toHaveLength(17);
    expect(tools.flatMap(strictProblems)).toEqual([]);
  });
});
