import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openApiDocument } from './document';

const run = promisify(execFile);

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  pointer?: string;
}

/**
 * @redocly/openapi-core is ESM-only, which jest's CommonJS runtime cannot load: the lint runs in a
 * plain node process (the document goes in as a file, named by an environment variable: it is larger
 * than one environment string may be; the problems come back as JSON), with the recommended rules.
 */
const LINT_SCRIPT = `
import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
const config = await createConfig({ extends: ['recommended'] });
const problems = await lintFromString({ source: readFileSync(process.env.OPENAPI_FILE, 'utf8'), absoluteRef: '/openapi.json', config });
process.stdout.write(JSON.stringify(problems.map((p) => ({ ruleId: p.ruleId, severity: p.severity, message: p.message, pointer: p.location[0]?.pointer }))));
`;

async function lint(doc: unknown): Promise<Problem[]> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mf-openapi-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    await fs.writeFile(file, JSON.stringify(doc));
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', LINT_SCRIPT], {
      cwd: __dirname,
      env: { ...process.env, OPENAPI_FILE: file },
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as Problem[];
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const show = (problems: Problem[]) =>
  problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.pointer}`).join('\n');

describe('the OpenAPI document', () => {
  it('has no errors under the recommended rules', async () => {
    const problems = await lint(openApiDocument);
    const errors = problems.filter((p) => p.severity === 'error');
    expect(show(errors)).toBe('');
  }, 60_000);

  it('is OpenAPI 3.1 and describes every public endpoint', () => {
    expect(openApiDocument.openapi).toBe('3.1.0');
    expect(Object.keys(openApiDocument.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/models',
        '/api/v1/account',
        '/api/v1/video/vidgen-2/generate',
        '/api/v1/image/imagegen/generate',
        '/api/v1/jobs/{id}',
        '/api/v1/media-studio/projects',
        '/api/v1/media-studio/projects/{id}',
        '/api/v1/media-studio/projects/{id}/instruct',
        '/api/v1/media-studio/projects/{id}/export',
        '/media/{key}',
        '/api/mcp',
      ]),
    );
    expect(Object.keys(openApiDocument.webhooks)).toEqual(['job.completed', 'job.failed', 'job.cancelled']);
  });

  it('finds the errors of a broken copy', async () => {
    const broken = JSON.parse(JSON.stringify(openApiDocument)) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    broken.paths['/api/v1/models'].get.responses['200'] = { $ref: '#/components/responses/Nowhere' };
    broken.paths['/api/v1/account'].get.responses['200'] = {
      content: { 'application/json': { schema: { type: 'object' } } },
    };
    const errors = (await lint(broken)).filter((p) => p.severity === 'error');
    expect(errors.map((e) => e.ruleId)).toEqual(expect.arrayContaining(['no-unresolved-refs']));
    expect(errors.some((e) => e.pointer?.includes('~1api~1v1~1account') && /description/.test(e.message))).toBe(true);
  }, 60_000);
});

describe('the openapi routes', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const express = require('express') as typeof import('express');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const request = require('supertest') as typeof import('supertest');
  const { openApiRoutes, REFERENCE_CSP, REDOC_CDN_LOGO } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('./openapi.routes') as typeof import('./openapi.routes');
  const app = express().use(openApiRoutes());

  it('serves the document, cacheable, without authentication', async () => {
    const res = await request(app).get('/api/v1/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
    await request(app).get('/api/v1/openapi.json').set('If-None-Match', res.headers.etag).expect(304);
  });

  it('serves the reference page and redoc with their own CSP', async () => {
    const page = await request(app).get('/api/v1/reference').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toBe(REFERENCE_CSP);
    expect(REFERENCE_CSP).toContain("style-src 'self' 'unsafe-inline'");
    expect(REFERENCE_CSP).toContain('blob:');
    expect(page.text).toContain('<redoc spec-url="/api/v1/openapi.json">');
    expect(page.text).toContain('src="/api/v1/reference/redoc.standalone.js"');
    const js = await request(app).get('/api/v1/reference/redoc.standalone.js').expect(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.headers['content-security-policy']).toBe(REFERENCE_CSP);
    expect(js.text.length).toBeGreaterThan(100_000);
    // Nothing from another origin: Redocly's CDN logo is replaced, and the page has its own icon.
    expect(js.text).not.toContain(REDOC_CDN_LOGO);
    expect(page.text).toContain('<link rel="icon" href="data:,">');
  });
});
