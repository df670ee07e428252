/**
 * docker-compose.yml checked by compose-go, Compose's own loader (the `docker-compose` v2 binary:
 * the official Compose Specification schema plus its semantic checks), and parsed as YAML for the
 * tests' own assertions on the text as written (variables not interpolated).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseYamlDocuments } from './k8s';
import { REPO_ROOT } from './paths';

/** Whether Docker Compose v2 answers here (npm test installs it; see ensure_compose). */
export const HAS_COMPOSE = /^2\./.test(
  spawnSync('docker-compose', ['version', '--short'], { encoding: 'utf8' }).stdout?.trim() ?? '',
);

if (!HAS_COMPOSE)
  console.warn(
    '\n*** SKIPPED: Docker Compose v2 not found: docker-compose.yml is not validated by compose-go on this machine ***\n',
  );

/** What a deployment's .env must hold at least: the secrets compose requires (`${VAR:?...}`). */
export const REQUIRED_ENV: Record<string, string> = {
  WEBHOOK_SECRET_KEY: 'ab'.repeat(32),
  PROVIDER_CALLBACK_SECRET: 'a-callback-secret-of-this-deployment',
};

/**
 * What compose-go says of a compose file's text: `docker-compose config` in the repository (the
 * project directory), with no environment but PATH, reading `envFiles` and then `vars`, so only
 * those and the file's own defaults apply. Resolves the normalised model, or the loader's error lines.
 */
export function composeConfig(
  text: string,
  vars: Record<string, string> = REQUIRED_ENV,
  envFiles: string[] = [],
): { ok: true; model: Record<string, unknown> } | { ok: false; errors: string[] } {
  const envFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mf-compose-')), 'deployment.env');
  fs.writeFileSync(
    envFile,
    Object.entries(vars)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  try {
    const res = spawnSync(
      'docker-compose',
      [
        '--project-directory',
        REPO_ROOT,
        // Each later file overrides the earlier ones: `vars` win.
        ...[...envFiles, envFile].flatMap((f) => ['--env-file', f]),
        '-f',
        '-',
        'config',
        '--format',
        'json',
      ],
      {
        input: text,
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    if (res.status === 0) return { ok: true, model: JSON.parse(res.stdout) as Record<string, unknown> };
    return { ok: false, errors: (res.stderr || String(res.error)).trim().split('\n').filter(Boolean) };
  } finally {
    fs.rmSync(path.dirname(envFile), { recursive: true, force: true });
  }
}

/** compose-go's errors for a compose file's text (empty when it loads). */
export function composeErrors(text: string): string[] {
  const res = composeConfig(text);
  return res.ok ? [] : res.errors;
}

/** Parses a compose file's text as written (YAML merge keys resolved, as Compose does). */
export function parseCompose(text: string, source = 'docker-compose.yml'): Record<string, unknown> {
  const docs = parseYamlDocuments(text, source);
  if (docs.length !== 1) throw new Error(`${source}: expected one YAML document, got ${docs.length}`);
  return docs[0] as Record<string, unknown>;
}
