/**
 * .env.example is where a newcomer learns the settings: `docker compose --env-file .env.example
 * config` loads as it is (its REQUIRED secrets hold development values production refuses), and every variable a service's
 * configuration schema reads is listed there, the ones compose does not pass with their defaults.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Joi from 'joi';
import { billingConfigSchema } from '../../services/billing/src/config';
import { editorAgentConfigSchema } from '../../services/editor-agent/src/config';
import { exportRendererConfigSchema } from '../../services/export-renderer/src/config';
import { gatewayConfigSchema } from '../../services/gateway/src/config';
import { jobsConfigSchema, loadJobsConfig } from '../../services/jobs/src/config';
import {
  loadWebhookDispatcherConfig,
  webhookDispatcherConfigSchema,
} from '../../services/webhook-dispatcher/src/config';
import { composeConfig, HAS_COMPOSE, REQUIRED_ENV } from './support/compose';
import { REPO_ROOT } from './support/paths';

const ENV_EXAMPLE = path.join(REPO_ROOT, '.env.example');
const lines = fs.readFileSync(ENV_EXAMPLE, 'utf8').split('\n');
const composeText = fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');

const SCHEMAS: Record<string, Joi.ObjectSchema> = {
  gateway: gatewayConfigSchema,
  billing: billingConfigSchema,
  jobs: jobsConfigSchema,
  'editor-agent': editorAgentConfigSchema,
  'export-renderer': exportRendererConfigSchema,
  'webhook-dispatcher': webhookDispatcherConfigSchema,
};

interface KeyDescription {
  flags?: { default?: unknown };
}

/** Per variable a service reads, the default of each service that reads it (undefined: none, or computed). */
function schemaDefaults(): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const schema of Object.values(SCHEMAS)) {
    const keys = (schema.describe() as { keys: Record<string, KeyDescription> }).keys;
    for (const [name, d] of Object.entries(keys)) {
      const fixed = typeof d.flags?.default === 'function' ? undefined : d.flags?.default;
      out.set(name, [...(out.get(name) ?? []), fixed]);
    }
  }
  return out;
}

/** `VAR=value` lines, set (`VAR=`) or commented out (`# VAR=`), from the line `from` on. */
function listed(from = 0): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of lines.slice(from)) {
    const m = /^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m && !out.has(m[1])) out.set(m[1], m[2]);
  }
  return out;
}

describe('.env.example', () => {
  (HAS_COMPOSE ? it : it.skip)(
    'loads with docker compose --env-file .env.example config as it is, and without a value for a REQUIRED secret compose names it',
    () => {
      const asIs = composeConfig(composeText, {}, [ENV_EXAMPLE]);
      if (!asIs.ok) throw new Error(asIs.errors.join('\n'));
      const bare = composeConfig(composeText, {}, []);
      const errors = bare.ok ? '' : bare.errors.join('\n');
      expect(errors).toMatch(/required variable (WEBHOOK_SECRET_KEY|PROVIDER_CALLBACK_SECRET) is missing a value/);
      expect(errors.match(/required variable [A-Z0-9_]+/g)?.every((e) => e.split(' ')[2] in REQUIRED_ENV)).toBe(true);
    },
  );

  it('holds development placeholders for the REQUIRED secrets that the services refuse in production, naming them', () => {
    const values = listed();
    const production = { NODE_ENV: 'production' };
    expect(() =>
      loadJobsConfig({ ...production, PROVIDER_CALLBACK_SECRET: values.get('PROVIDER_CALLBACK_SECRET') }),
    ).toThrow(/PROVIDER_CALLBACK_SECRET: is the development default/);
    expect(() =>
      loadWebhookDispatcherConfig({ ...production, WEBHOOK_SECRET_KEY: values.get('WEBHOOK_SECRET_KEY') }),
    ).toThrow(/WEBHOOK_SECRET_KEY: is the development default/);
    for (const name of Object.keys(REQUIRED_ENV))
      expect(lines[lines.findIndex((l) => l.startsWith(`${name}=`)) - 1]).toMatch(/DEVELOPMENT PLACEHOLDER/);
  });

  it('lists every variable a service configuration schema reads', () => {
    const documented = listed();
    const missing = [...schemaDefaults().keys()].filter((name) => !documented.has(name));
    expect(missing).toEqual([]);
  });

  it('shows each setting compose does not pass with the default of every service that reads it', () => {
    const start = lines.findIndex((line) => line.startsWith('# --- service settings docker-compose.yml does not pass'));
    expect(start).toBeGreaterThan(0);
    const defaults = schemaDefaults();
    const shown = [...listed(start)].filter(([name]) => defaults.get(name)?.some((d) => d !== undefined));
    expect(shown.length).toBeGreaterThanOrEqual(40);
    for (const [name, value] of shown) {
      const expected = defaults
        .get(name)!
        .filter((d) => d !== undefined)
        .map((d) => String(d));
      expect([name, value]).toEqual([name, expected[0]]);
      expect([name, new Set(expected).size]).toEqual([name, 1]);
    }
  });

  it('does not list a variable compose passes among those it does not pass', () => {
    const start = lines.findIndex((line) => line.startsWith('# --- service settings docker-compose.yml does not pass'));
    const passed = new Set([...composeText.matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]));
    const wrong = [...listed(start).keys()].filter((name) => passed.has(name));
    expect(wrong).toEqual([]);
  });
});
