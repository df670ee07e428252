/**
 * What trim-bundle.ts leaves out of a bundle still works from dist/ alone: iconv-lite decodes a
 * double-byte charset from the tables shipped beside the bundle, and knex still builds postgres
 * queries while naming the module it lacks for another client.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { NODE_BUNDLE, REPO_ROOT } from '../services';
import { ICONV_TABLES_DIR, trimBundle } from '../trim-bundle';

const run = promisify(execFile);

/** The iconv-lite express's body parsers use (pnpm keeps it out of the workspace's own node_modules). */
function iconvLitePath(): string {
  const fromHttp = createRequire(path.join(REPO_ROOT, 'libs', 'http', 'package.json'));
  const fromExpress = createRequire(fromHttp.resolve('express/package.json'));
  return createRequire(fromExpress.resolve('body-parser/package.json')).resolve('iconv-lite');
}

const PROGRAM = `
const iconv = require(${JSON.stringify(iconvLitePath())});
const knex = require('knex');
const out = { shiftJis: iconv.decode(Buffer.from([0x82, 0xa0, 0x93, 0xfa]), 'shift_jis') };
out.sql = knex({ client: 'pg' })('jobs').where({ id: 1 }).toString();
try { knex({ client: 'mysql' }); } catch (err) { out.mysql = err.message; }
console.log(JSON.stringify(out));
`;

describe('trimmed bundle', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-trim-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('decodes Shift_JIS from the shipped tables and keeps knex working for postgres', async () => {
    const entry = path.join(dir, 'entry.js');
    fs.writeFileSync(entry, PROGRAM);
    const trim = trimBundle();
    const outDir = path.join(dir, 'dist');
    await build({
      entryPoints: [entry],
      outfile: path.join(outDir, 'main.js'),
      ...NODE_BUNDLE,
      sourcemap: false,
      external: [
        'pg',
        'pg-native',
        'pg-query-stream',
        'sqlite3',
        'better-sqlite3',
        'mysql',
        'mysql2',
        'tedious',
        'oracledb',
      ],
      nodePaths: [path.join(REPO_ROOT, 'libs', 'db', 'node_modules')],
      plugins: [trim.plugin],
      logLevel: 'error',
    });
    trim.copyFiles(outDir);
    const bundle = fs.readFileSync(path.join(outDir, 'main.js'), 'utf8');
    expect(bundle).toContain('require("./iconv-lite-tables/shiftjis.json")');
    expect(bundle).toContain('require("./mysql")');
    expect(fs.existsSync(path.join(outDir, ICONV_TABLES_DIR, 'shiftjis.json'))).toBe(true);

    const { stdout } = await run(process.execPath, [path.join(outDir, 'main.js')], {
      cwd: dir,
      env: { PATH: process.env.PATH },
    });
    const out = JSON.parse(stdout) as { shiftJis: string; sql: string; mysql: string };
    expect(out.shiftJis).toBe('あ日');
    expect(out.sql).toBe('select * from "jobs" where "id" = 1');
    expect(out.mysql).toMatch(/Cannot find module '\.\/mysql'/);
  });
});
