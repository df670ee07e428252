import express from 'express';
import request from 'supertest';
import { createLogger } from '@mf/logger';
import { pathParamNames } from '../operations/operation';
import { OPERATIONS } from '../operations/table';
import { EDITOR_LIBRARY_TOOLS } from '../mcp/tools/editor-library.tools';
import { EDITOR_TOOLS } from '../mcp/tools/editor.tools';
import { GENERATION_TOOLS } from '../mcp/tools/generation.tools';
import { apiRouter, type ApiDeps } from './api.router';
import { openApiRoutes } from './openapi/openapi.routes';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface LayerLike {
  route?: { path: unknown; methods: Record<string, boolean> };
  slash?: boolean;
  handle?: { stack?: LayerLike[] };
}

/** `METHOD /path` of every route the router answers (405 handlers are `_all` routes, left out). */
function mountedOperations(stack: LayerLike[], into: string[] = []): string[] {
  for (const layer of stack) {
    if (layer.route && typeof layer.route.path === 'string') {
      for (const [m, on] of Object.entries(layer.route.methods))
        if (on && METHODS.includes(m)) into.push(`${m.toUpperCase()} ${layer.route.path}`);
    } else if (layer.slash && layer.handle?.stack) mountedOperations(layer.handle.stack, into);
  }
  return into;
}

// Building the router connects to nothing: its dependencies are only called by requests.
const deps = {
  falEndpoints: {},
  idempotency: (_req: unknown, _res: unknown, next: () => void) => next(),
  bodyLimit: '1mb',
  logger: createLogger('gateway-operations-test', 'silent'),
} as unknown as ApiDeps;

const sorted = (list: string[]) => [...list].sort();

describe('the operation table', () => {
  const table = OPERATIONS.map((o) => `${o.method.toUpperCase()} /api/v1${o.path.replace(/\{(\w+)\}/g, ':$1')}`);

  it('names each operation once', () => {
    expect(new Set(OPERATIONS.map((o) => o.id)).size).toBe(OPERATIONS.length);
    expect(new Set(table).size).toBe(table.length);
  });

  it('is what the mounted /api/v1 router answers, operation for operation', () => {
    const mounted = mountedOperations(apiRouter(deps).stack as LayerLike[]).map((r) => r.replace(' ', ' /api/v1'));
    expect(sorted(mounted)).toEqual(sorted(table));
  });

  it('is what the served OpenAPI document describes under /api/v1 (besides the document itself)', async () => {
    const app = express().use(openApiRoutes());
    const res = await request(app).get('/api/v1/openapi.json').expect(200);
    const doc = res.body as { paths: Record<string, Record<string, unknown>> };
    const described = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/') && !['/api/v1/openapi.json', '/api/v1/reference'].includes(path))
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      );
    expect(sorted(described)).toEqual(sorted(table));
  });

  it('documents every path parameter of every operation', () => {
    const onPath = new Map<string, string[]>();
    for (const o of OPERATIONS) {
      const declared = 'pathParams' in o ? o.pathParams.map((p) => p.name as string) : undefined;
      if (declared && !onPath.has(o.path)) onPath.set(o.path, declared);
    }
    for (const o of OPERATIONS) {
      const own = 'parameters' in o ? o.parameters.filter((p) => p.in === 'path').map((p) => p.name as string) : [];
      expect({ id: o.id, params: sorted([...(onPath.get(o.path) ?? []), ...own]) }).toEqual({
        id: o.id,
        params: sorted(pathParamNames(o.path)),
      });
    }
  });

  it('names only MCP tools that exist', () => {
    const tools = new Set([...GENERATION_TOOLS, ...EDITOR_TOOLS, ...EDITOR_LIBRARY_TOOLS].map((t) => t.name));
    for (const o of OPERATIONS) if ('mcp' in o) expect(tools).toContain(o.mcp.name);
  });
});
