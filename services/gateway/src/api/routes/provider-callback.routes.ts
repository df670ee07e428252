import express, { Router, type RequestHandler } from 'express';
import type { Bus } from '@mf/bus';
import { checkCallbackToken } from '@mf/runtime';
import { JOB_ID, nudgeJob } from '../../core/usecases/jobs.usecase';

/**
 * Signature headers of signed callbacks, forwarded with the raw body when every header of one
 * scheme is there: Standard Webhooks (Replicate), OpenRouter's `X-OpenRouter-Signature` and fal's
 * ED25519 `X-Fal-Webhook-*`.
 */
const SIGNATURE_SCHEMES = [
  ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
  ['x-openrouter-signature'],
  ['x-fal-webhook-request-id', 'x-fal-webhook-user-id', 'x-fal-webhook-timestamp', 'x-fal-webhook-signature'],
];
/** Far above what a provider sends (a status and result URLs); larger bodies are refused unread (413). */
export const MAX_CALLBACK_BODY = 256 * 1024;

const RECEIVED = { received: true };

const tokenOf = (raw: unknown): string => (typeof raw === 'string' ? raw : '');

/** The callback's attempt (`?attempt=`), undefined when absent or not one. */
function attemptOf(raw: unknown): number | undefined {
  return typeof raw === 'string' && /^[1-9]\d{0,1}$/.test(raw) ? Number(raw) : undefined;
}

/**
 * Completion callbacks of upstream providers (fal's webhook, Replicate's, OpenRouter's callback_url).
 * The URL carries a token for one attempt of the job, good until the job's deadline; the call
 * makes jobs poll the job now. The token is checked here, before the body is read or anything
 * reaches jobs: a forged, expired or other attempt's URL costs one HMAC and no RPC, and its body is
 * never read (the connection closes). The raw body goes along only when the provider signed it,
 * for jobs to verify (never parsed or trusted here; a verified body may carry the result). 200 once
 * the broker holds the callback for jobs (nudgeJob), so a provider never retries against us for
 * our own reasons; a 503 only when the broker did not take it, for the provider to call again.
 */
export function providerCallbackRoutes(bus: Bus, opts: { callbackSecret: string }): Router {
  const checkToken: RequestHandler = (req, res, next) => {
    const jobId = String(req.params.jobId);
    const token = tokenOf(req.query.token);
    const attempt = attemptOf(req.query.attempt);
    if (JOB_ID.test(jobId) && checkCallbackToken(opts.callbackSecret, { jobId, attempt, token })) return next();
    res.setHeader('Connection', 'close');
    res.json(RECEIVED);
  };
  return Router().post(
    '/api/providers/callback/:jobId',
    checkToken,
    express.raw({ type: () => true, limit: MAX_CALLBACK_BODY }),
    async (req, res) => {
      const token = tokenOf(req.query.token);
      const attempt = attemptOf(req.query.attempt);
      const scheme = SIGNATURE_SCHEMES.find((headers) => headers.every((h) => typeof req.headers[h] === 'string'));
      const webhook =
        scheme && Buffer.isBuffer(req.body)
          ? {
              headers: Object.fromEntries(scheme.map((h) => [h, String(req.headers[h]).slice(0, 2000)])),
              body: req.body.toString('utf8'),
            }
          : undefined;
      await nudgeJob(bus, { jobId: String(req.params.jobId), token, attempt, webhook });
      res.json(RECEIVED);
    },
  );
}
