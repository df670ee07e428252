import { createHmac, timingSafeEqual } from 'node:crypto';

/** Published here, so usable in development only (production refuses it, see each service's config). */
export const DEV_CALLBACK_SECRET = 'dev-only-callback-secret-change-me';

/** What a provider callback URL's token is good for: one attempt of one job, until the job's deadline. */
export interface CallbackGrant {
  jobId: string;
  attempt: number;
  /** When the token stops being accepted: the job's own deadline (no callback can matter after it). */
  expiresAt: Date;
}

/**
 * The token's shape: `<expiry, unix seconds>-<HMAC-SHA256 of job id, attempt and expiry, base64url>`
 * (URL-safe as it is; the MAC's fixed length keeps the split unambiguous).
 */
const TOKEN = /^(\d{1,12})-([A-Za-z0-9_-]{43})$/;

const mac = (secret: string, jobId: string, attempt: number, expSec: number) =>
  createHmac('sha256', secret).update(`${jobId}\n${attempt}\n${expSec}`).digest('base64url');

/**
 * The token of a provider callback URL (jobs makes it; the gateway checks it before anything
 * reaches jobs, and jobs checks it again). Bound to the attempt, so a URL given to one upstream
 * cannot nudge another attempt, and expiring with the job, so a leaked URL is not good forever.
 */
export function signCallbackToken(secret: string, grant: CallbackGrant): string {
  const exp = Math.ceil(grant.expiresAt.getTime() / 1000);
  return `${exp}-${mac(secret, grant.jobId, grant.attempt, exp)}`;
}

/** Whether `token` was signed with `secret` for this job and attempt and has not expired at `now`. */
export function checkCallbackToken(
  secret: string,
  call: { jobId: string; attempt: number | undefined; token: string },
  now: Date = new Date(),
): boolean {
  const m = TOKEN.exec(call.token);
  if (!m || call.attempt === undefined) return false;
  const exp = Number(m[1]);
  if (exp * 1000 <= now.getTime()) return false;
  const expected = Buffer.from(mac(secret, call.jobId, call.attempt, exp));
  const given = Buffer.from(m[2]);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
