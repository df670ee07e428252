import type { IncomingMessage } from 'node:http';
import { Router, type RequestHandler } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { jsonBody, requestId } from '@mf/http';
import type { AdapterDeps } from '../http/adapter-deps';
import { authOf } from '../http/auth.middleware';
import { rateLimit } from '../http/rate-limit.middleware';
import { recordUsage } from '../http/usage.middleware';
import { mcpAuthenticate, resourceMetadataUrl, type TokenVerifier } from './auth';
import { admitBatch, BATCH_TOO_LARGE, MAX_BATCH, refuseBeyondAdmitted } from './batch-limit';
import { invalidParamsAnswer } from './invalid-params';
import { buildMcpServer } from './server';
import type { EventHub } from '../core/events/event-hub';
import type { TurnEvents } from '../core/events/turn-events';
import type { DurableTaskStore } from './tasks/postgres-task-store';

export interface McpDeps extends AdapterDeps {
  /** Asked in order for each bearer token (API keys, OAuth access tokens). */
  verifiers: readonly TokenVerifier[];
  /** How often long tool calls report progress (tests shorten it). */
  progressIntervalMs?: number;
  /** Live job events (the generations' real progress in long tools' notifications). */
  events?: EventHub;
  /** The streamed instruct turns' events (a followed instruct's steps). */
  turns?: TurnEvents;
  /** How often a followed export reads its state between events (tests shorten it). */
  followPollMs?: number;
  /** A user's durable MCP tasks: with it, long tools run as tasks when the client asks. */
  tasks?: (userId: number) => DurableTaskStore;
}

/** JSON-RPC "method not allowed", as the SDK's stateless examples answer GET and DELETE. */
const methodNotAllowed: RequestHandler = (_req, res) => {
  res
    .status(405)
    .setHeader('Allow', 'POST')
    .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
};

/**
 * /api/mcp: the MCP streamable HTTP endpoint, stateless. Each POST gets a new server and transport,
 * so no session lives in a process and any replica can answer. The chain before it is the REST
 * API's: authentication, usage record and rate limit, JSON body; then every further message of a
 * batch (at most MAX_BATCH) counts against the key's limit too (batch-limit.ts).
 */
export function mcpRouter(deps: McpDeps): Router {
  const router = Router();
  router.use(
    mcpAuthenticate(deps.verifiers, resourceMetadataUrl(deps.publicBaseUrl)),
    recordUsage(deps.usage),
    rateLimit(deps.limiter),
    jsonBody(deps.bodyLimit, { jsonTypeOnly: false, objectOnly: false }),
  );

  router.post('/', async (req, res) => {
    // JSON-RPC 2.0 §6: an empty batch is an invalid request (the SDK would answer 202, as to notifications).
    if (Array.isArray(req.body) && req.body.length === 0) {
      res
        .status(400)
        .json({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: empty batch' }, id: null });
      return;
    }
    if (Array.isArray(req.body) && req.body.length > MAX_BATCH) {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32600, message: BATCH_TOO_LARGE }, id: null });
      return;
    }
    const invalid = invalidParamsAnswer(req.body);
    if (invalid) {
      res.status(200).json(invalid);
      return;
    }
    const admission = await admitBatch(deps.limiter, authOf(req).apiKeyId, req.body, res);
    const id = requestId(req);
    const server = buildMcpServer(
      {
        bus: deps.bus,
        auth: authOf(req),
        correlationId: id,
        falEndpoints: deps.falEndpoints,
        submitTimeoutMs: deps.submitTimeoutMs,
        instructTimeoutMs: deps.instructTimeoutMs,
        exportTimeoutMs: deps.exportTimeoutMs,
        importTimeoutMs: deps.importTimeoutMs,
        events: deps.events,
        turns: deps.turns,
        followPollMs: deps.followPollMs,
      },
      { logger: deps.logger, progressIntervalMs: deps.progressIntervalMs, tasks: deps.tasks?.(authOf(req).userId) },
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      refuseBeyondAdmitted(transport, admission);
      // As a plain IncomingMessage: the SDK would read `req.auth` as its own AuthInfo; the tools
      // already have the caller bound, so nothing of it is needed there.
      await transport.handleRequest(req as IncomingMessage, res, req.body);
    } catch (err) {
      (req.log ?? deps.logger).error({ err, requestId: id }, 'MCP request failed');
      if (!res.headersSent)
        res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
  });

  router.all('/', methodNotAllowed);
  return router;
}
