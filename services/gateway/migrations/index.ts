import type { Migration } from '@mf/db';
import { usersKeysUsage } from './0001_users_keys_usage';
import { sessions } from './0002_sessions';
import { oauth } from './0003_oauth';
import { idempotency } from './0004_idempotency';
import { rateLimits } from './0005_rate_limits';
import { oauthRedirectUriGiven } from './0006_oauth_redirect_uri_given';
import { signupCredits } from './0007_signup_credits';
import { streamSlots } from './0008_stream_slots';
import { mcpTasks } from './0009_mcp_tasks';
import { mcpTaskWork } from './0010_mcp_task_work';

/** In order. Append only. */
export const migrations: Migration[] = [
  usersKeysUsage,
  sessions,
  oauth,
  idempotency,
  rateLimits,
  oauthRedirectUriGiven,
  signupCredits,
  streamSlots,
  mcpTasks,
  mcpTaskWork,
];
