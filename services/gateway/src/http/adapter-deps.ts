import type { Bus } from '@mf/bus';
import type { FalEndpoints } from '@mf/catalog';
import type { Logger } from '@mf/logger';
import type { RateLimiter } from '../core/ratelimit/rate-limiter';
import type { UsageRecorder } from '../core/usage/usage-recorder';

/** What /api/v1 and /api/mcp both run on: the same use cases behind the same per-key limits. */
export interface AdapterDeps {
  bus: Bus;
  /** Shared by /api/v1 and /api/mcp: the per-key limit covers both. */
  limiter: RateLimiter;
  usage: UsageRecorder;
  falEndpoints: FalEndpoints;
  bodyLimit: string;
  /** How long a submit may take end to end (charge + provider submit). */
  submitTimeoutMs: number;
  /** How long an editor instruct call may wait for the agent's turn. */
  instructTimeoutMs: number;
  exportTimeoutMs: number;
  /** How long an asset import or upload may take (fetch, probe, store). */
  importTimeoutMs: number;
  /** For the webhook test event's sample URLs and the MCP resource metadata. */
  publicBaseUrl: string;
  logger: Logger;
}
