import fs from 'node:fs';
import path from 'node:path';

/**
 * The gateway's layout as a rule (docs/decisions.md): core/ (auth context and scopes, use cases,
 * repositories, domain rules) under three adapters that only translate, api/ (REST), mcp/ and
 * console/ (dashboard, sessions, OAuth). http/ is the express plumbing the adapters share.
 * operations/ declares the public operations (data only: the router, the document, the SDK and the
 * scope checks read it). Adapters import core and http, never each other; core imports no adapter,
 * no http and no express.
 */
const SRC = path.resolve(__dirname, '../src');
const LAYERS = ['operations', 'core', 'http', 'api', 'mcp', 'console', 'admin'] as const;
type Layer = (typeof LAYERS)[number];

/** What each layer may import (besides itself and outside packages other than express for core). */
const MAY_IMPORT: Record<Layer, Layer[]> = {
  operations: [],
  core: ['operations'],
  http: ['core'],
  api: ['operations', 'core', 'http'],
  mcp: ['operations', 'core', 'http'],
  console: ['core', 'http'],
  admin: ['core'],
};

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) yield full;
  }
}

const layerOf = (file: string): Layer | null => {
  const top = path.relative(SRC, file).split(path.sep)[0];
  return (LAYERS as readonly string[]).includes(top) ? (top as Layer) : null;
};

const IMPORT = /(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

function violations(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const layer = layerOf(file);
    if (!layer) continue; // main.ts and config.ts wire everything
    const text = fs.readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(IMPORT)) {
      const where = path.relative(SRC, file);
      if (spec === 'express' || spec.startsWith('express/')) {
        if (layer === 'core') found.push(`${where} imports express`);
        continue;
      }
      if (!spec.startsWith('.')) continue;
      const target = layerOf(path.resolve(path.dirname(file), spec));
      if (target === null) {
        const resolved = path.resolve(path.dirname(file), spec);
        // The admin CLI reads the gateway's configuration as main.ts does.
        const config = resolved === path.join(SRC, 'config') && layer === 'admin';
        if (resolved.startsWith(SRC) && !config) found.push(`${where} imports ${spec} (main or config)`);
        continue;
      }
      if (target !== layer && !MAY_IMPORT[layer].includes(target))
        found.push(`${where} (${layer}) imports ${spec} (${target})`);
    }
  }
  return found;
}

describe('the gateway layers', () => {
  it('has every source file in a layer', () => {
    const loose = fs.readdirSync(SRC).filter((f) => f.endsWith('.ts') && !['main.ts', 'config.ts'].includes(f));
    expect(loose).toEqual([]);
  });

  it('keeps core free of adapters and express, and adapters free of each other', () => {
    expect(violations()).toEqual([]);
  });

  it('calls other services only from core use cases', () => {
    const calls = [...sourceFiles(SRC)]
      .filter((f) => layerOf(f) !== 'core' && /\.rpc\(/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f));
    expect(calls).toEqual([]);
  });
});
