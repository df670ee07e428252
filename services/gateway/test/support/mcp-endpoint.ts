import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Bus } from '@mf/bus';
import { DEFAULT_FAL_ENDPOINTS } from '@mf/catalog';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import type { AuthContext, TokenVerifier } from '../../src/http/auth.middleware';
import { memoryRateLimiter } from '../../src/core/ratelimit/rate-limiter';
import type { UsageRecord } from '../../src/core/repositories/usage.repository';
import type { UsageRecorder } from '../../src/core/usage/usage-recorder';
import type { EventHub } from '../../src/core/events/event-hub';
import type { TurnEvents } from '../../src/core/events/turn-events';
import type { DurableTaskStore } from '../../src/mcp/tasks/postgres-task-store';
import { mcpRouter } from '../../src/mcp/router';

/** The gateway's MCP endpoint for tests: a recording bus instead of the services. */

const logger = createLogger('gateway-mcp-test', 'silent');
export const ALL = [
  'models:read',
  'video:write',
  'image:write',
  'jobs:read',
  'video-editor:write',
  'video-editor:read',
];
export const TIMEOUTS = {
  submitTimeoutMs: 1111,
  instructTimeoutMs: 2222,
  exportTimeoutMs: 3333,
  importTimeoutMs: 4444,
};

export interface EndpointOptions {
  limit?: number;
  progressIntervalMs?: number;
  followPollMs?: number;
  events?: EventHub;
  turns?: TurnEvents;
  tasks?: (userId: number) => DurableTaskStore;
}

export interface RpcCall {
  queue: string;
  method: string;
  request: Record<string, unknown>;
  timeoutMs?: number;
}

export type Reply = (method: string, request: Record<string, unknown>) => unknown;

/** The gateway's MCP endpoint on a real port, with a recording bus and tokens `key-all`, `key-read`, `oauth-all`. */
export async function startEndpoint(opts: EndpointOptions = {}) {
  const calls: RpcCall[] = [];
  const usage: UsageRecord[] = [];
  let reply: Reply = (method) => ({ echoed: method });
  const bus = {
    rpc: async (
      service: { queue: string },
      method: string,
      request: Record<string, unknown>,
      o: { timeoutMs?: number } = {},
    ) => {
      calls.push({ queue: service.queue, method, request, timeoutMs: o.timeoutMs });
      return reply(method, request);
    },
  };
  const keys: Record<string, AuthContext> = {
    'key-all': { userId: 7, apiKeyId: 70, scopes: ALL },
    'key-read': { userId: 7, apiKeyId: 71, scopes: ['models:read', 'video-editor:read'] },
  };
  const apiKeys: TokenVerifier = async (token) => keys[token] ?? null;
  const oauth: TokenVerifier = async (token) =>
    token === 'oauth-all' ? { userId: 8, apiKeyId: 80, scopes: ALL } : null;

  const app = createHttpApp({ logger });
  app.use(
    '/api/mcp',
    mcpRouter({
      // Only `rpc` is used by the use cases; the rest of Bus is not needed here.
      bus: bus as unknown as Bus,
      // Only `record` is called, by the usage middleware.
      usage: { record: (row: UsageRecord) => usage.push(row) } as unknown as UsageRecorder,
      limiter: memoryRateLimiter(opts.limit ?? 1000),
      falEndpoints: DEFAULT_FAL_ENDPOINTS,
      bodyLimit: '1mb',
      ...TIMEOUTS,
      publicBaseUrl: 'https://media.example/',
      verifiers: [apiKeys, oauth],
      logger,
      progressIntervalMs: opts.progressIntervalMs,
      followPollMs: opts.followPollMs,
      events: opts.events,
      turns: opts.turns,
      tasks: opts.tasks,
    }),
  );
  finish(app, logger);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`;
  const clients: Client[] = [];
  return {
    url,
    calls,
    usage,
    answer: (fn: Reply) => {
      reply = fn;
    },
    connect: async (token = 'key-all') => {
      const client = new Client({ name: 'mcp-unit-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await new Promise((r) => server.close(r));
    },
  };
}

export type Endpoint = Awaited<ReturnType<typeof startEndpoint>>;
