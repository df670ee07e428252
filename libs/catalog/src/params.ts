import type Joi from 'joi';

/**
 * A model's accepted parameters as GET /models shows them (docs/api-behaviour.md), read off the
 * submit body's schema (@mf/contracts api/generation.ts): its types, defaults, enums and limits
 * are shown exactly as they are enforced.
 */
export interface ParamSpec {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'string[]';
  required: boolean;
  description: string;
  default?: string | number | boolean | string[] | null;
  enum?: readonly (string | number)[];
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  min_items?: number;
  max_items?: number;
  format?: 'https-url';
}

interface Described {
  type: string;
  flags?: { presence?: string; default?: unknown; description?: string; only?: boolean };
  allow?: unknown[];
  rules?: { name: string; args?: Record<string, unknown> }[];
  metas?: Record<string, unknown>[];
  items?: Described[];
}

const arg = (d: Described, rule: string, name: string): number | undefined =>
  d.rules?.find((r) => r.name === rule)?.args?.[name] as number | undefined;
const meta = (d: Described, key: string): number | undefined =>
  d.metas?.find((m) => key in m)?.[key] as number | undefined;
const isHttpsUrl = (d: Described | undefined): boolean =>
  Boolean(d?.rules?.some((r) => r.name === 'uri' && JSON.stringify(r.args?.options ?? {}).includes('https')));

function specOf(d: Described): ParamSpec {
  const integer = d.rules?.some((r) => r.name === 'integer');
  const type: ParamSpec['type'] =
    d.type === 'array'
      ? 'string[]'
      : d.type === 'number'
        ? integer
          ? 'integer'
          : 'number'
        : (d.type as ParamSpec['type']);
  const spec: ParamSpec = { type, required: d.flags?.presence === 'required', description: d.flags?.description ?? '' };
  const entries: [keyof ParamSpec, unknown][] = [
    ['default', d.flags?.default],
    ['enum', d.flags?.only ? d.allow?.filter((v) => v !== null) : undefined],
    ['min', d.type === 'number' ? arg(d, 'min', 'limit') : undefined],
    ['max', d.type === 'number' ? arg(d, 'max', 'limit') : undefined],
    ['min_length', meta(d, 'x-min-chars')],
    ['max_length', meta(d, 'x-max-chars')],
    ['min_items', d.type === 'array' ? arg(d, 'min', 'limit') : undefined],
    ['max_items', d.type === 'array' ? arg(d, 'max', 'limit') : undefined],
    ['format', isHttpsUrl(d) || isHttpsUrl(d.items?.[0]) ? 'https-url' : undefined],
  ];
  for (const [k, v] of entries) if (v !== undefined) (spec as unknown as Record<string, unknown>)[k] = v;
  return spec;
}

/** The params of a submit schema; `without` leaves fields out, `descriptions` replaces some texts. */
export function paramsOf(
  schema: Joi.ObjectSchema,
  opts: { without?: string[]; descriptions?: Record<string, string> } = {},
): Record<string, ParamSpec> {
  const keys = (schema.describe() as { keys: Record<string, Described> }).keys;
  const out: Record<string, ParamSpec> = {};
  for (const [name, d] of Object.entries(keys)) {
    if (opts.without?.includes(name)) continue;
    const spec = specOf(d);
    if (opts.descriptions?.[name]) spec.description = opts.descriptions[name];
    out[name] = spec;
  }
  return out;
}
