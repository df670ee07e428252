import type { Response } from 'express';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { rateLimitKey, setRateLimitHeaders } from '../http/rate-limit.middleware';
import { rateLimitExceededMessage, type RateLimiter } from '../core/ratelimit/rate-limiter';

/** Most messages one POST may carry (the SDK allows 100; a batch is a burst of requests). */
export const MAX_BATCH = 20;

/** JSON-RPC's "server error" range: the SDK's own code for a request refused before it ran. */
export const RATE_LIMITED_CODE = -32000;

export const BATCH_TOO_LARGE = `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`;

/** What the key's rate limit lets through of one POST's messages. */
export interface BatchAdmission {
  /** The first `admitted` messages run; the others are answered with `refusal` (requests) or dropped (notifications). */
  admitted: number;
  refusal: string;
}

/**
 * Every message of a JSON-RPC batch counts against the key's per-minute limit like a request of
 * its own. The HTTP request already counted one (the rate-limit middleware, which refuses the
 * whole POST with 429 when nothing is left); the batch's other messages are counted here in one
 * store call, and those past the limit are refused one by one, in batch order.
 */
export async function admitBatch(
  limiter: RateLimiter,
  apiKeyId: number,
  body: unknown,
  res: Response,
): Promise<BatchAdmission> {
  const size = Array.isArray(body) ? body.length : 1;
  if (size <= 1) return { admitted: size, refusal: '' };
  const d = await limiter.consume(rateLimitKey(apiKeyId), size - 1);
  setRateLimitHeaders(res, d);
  return { admitted: 1 + d.granted, refusal: rateLimitExceededMessage(d.limit, d.retryAfterSec) };
}

/**
 * Wraps the transport's delivery to the server (set by `server.connect`): the transport hands over
 * a batch's messages in order, and each one past `admitted` gets a JSON-RPC error in its place,
 * so nothing it asked for runs (and nothing is charged).
 */
export function refuseBeyondAdmitted(transport: Transport, { admitted, refusal }: BatchAdmission): void {
  const deliver = transport.onmessage;
  let seen = 0;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    seen++;
    if (seen <= admitted) return deliver?.(message, extra);
    if (isJSONRPCRequest(message))
      void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: RATE_LIMITED_CODE, message: refusal } });
  };
}
