import express, { Router } from 'express';
import type { Bus } from '@mf/bus';
import { nudgeJob } from '../../core/usecases/jobs.usecase';

/**
 * Signature headers of signed callbacks, forwarded with the raw body when every header of one
 * scheme is there: Standard Webhooks (Replicate) and OpenRouter's `X-OpenRouter-Signature`.
 */
const SIGNATURE_SCHEMES = [['webhook-id', 'webhook-timestamp', 'webhook-signature'], ['x-openrouter-signature']];
const MAX_BODY = 1024 * 1024;

/**
 * Completion callbacks of upstream providers (fal's webhook, Replicate's, OpenRouter's callback_url).
 * The URL carries a per-job token and the attempt it was given to; the call makes jobs poll the
 * job now. The raw body goes along only when the provider signed it, for jobs to verify (never
 * parsed or trusted here). Always 200 for a known route, so a provider never retries against us
 * for our own reasons.
 */
export function providerCallbackRoutes(bus: Bus): Router {
  return Router().post(
    '/api/providers/callback/:jobId',
    express.raw({ type: () => true, limit: MAX_BODY }),
    async (req, res) => {
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      const attempt =
        typeof req.query.attempt === 'string' && /^[1-9]\d{0,1}$/.test(req.query.attempt)
          ? Number(req.query.attempt)
          : undefined;
      const scheme = SIGNATURE_SCHEMES.find((headers) => headers.every((h) => typeof req.headers[h] === 'string'));
      const webhook =
        scheme && Buffer.isBuffer(req.body)
          ? {
              headers: Object.fromEntries(scheme.map((h) => [h, String(req.headers[h]).slice(0, 2000)])),
              body: req.body.toString('utf8'),
            }
          : undefined;
      await nudgeJob(bus, { jobId: String(req.params.jobId), token, attempt, webhook });
      res.json({ received: true });
    },
  );
}
