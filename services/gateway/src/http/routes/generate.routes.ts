import { Router } from 'express';
import type { Bus } from '@mf/bus';
import { validateImageRequest, validateVideoRequest, type Validated } from '@mf/catalog';
import { jobsRpc, SEED_MAX, type SubmitJobReply, type SubmitJobRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { requestId } from '@mf/http';
import { randomInt } from 'node:crypto';
import { authOf, requireScope } from '../auth.middleware';

/** How long a submit may take end to end (charge + provider submit). */
export interface GenerateOptions {
  submitTimeoutMs: number;
}

function valid<T>(result: Validated<T>): T {
  if (!result.ok) throw AppError.badRequest(result.error);
  return result.value;
}

/** A random seed when none was given: stored with the job, so its output can be reproduced. */
function seedOf(seed: number | null): number {
  return seed ?? randomInt(0, SEED_MAX);
}

function accepted(reply: SubmitJobReply): object {
  return { ...reply, poll_url: `/api/v1/jobs/${reply.job_id}` };
}

/** The two submit endpoints: validate (400, nothing charged), then ask jobs to submit (202). */
export function generateRoutes(bus: Bus, opts: GenerateOptions): Router {
  const router = Router();
  const submit = (req: SubmitJobRequest, correlationId: string) => bus.rpc(jobsRpc, 'submit', req, { timeoutMs: opts.submitTimeoutMs, correlationId });

  router.post('/video/vidgen-2/generate', requireScope('video:write'), async (req, res) => {
    const v = valid(validateVideoRequest(req.body));
    const auth = authOf(req);
    const reply = await submit({ user_id: auth.userId, api_key_id: auth.apiKeyId, type: 'video', params: { ...v, seed: seedOf(v.seed) } }, requestId(req));
    res.status(202).json(accepted(reply));
  });

  router.post('/image/imagegen/generate', requireScope('image:write'), async (req, res) => {
    const v = valid(validateImageRequest(req.body));
    const auth = authOf(req);
    const reply = await submit({ user_id: auth.userId, api_key_id: auth.apiKeyId, type: 'image', params: { ...v, seed: seedOf(v.seed) } }, requestId(req));
    res.status(202).json(accepted(reply));
  });
  return router;
}
