import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { signOpenRouterWebhook } from '../../src/providers/openrouter/webhook-signature';
import { bearer, markersIn, sendWebhook, startFakeServer, type FakeServer, type Webhook } from './fake-upstream';

export const FAKE_OPENROUTER_KEY = 'sk-or-v1-fake';
export const FAKE_OPENROUTER_SECRET = 'fake-openrouter-webhook-signing-secret';

type VideoStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'expired';

/**
 * The models `GET /videos/models` lists, with the documented capability fields. acme/veo: 4/6/8 s,
 * audio, seed, first and last frames; acme/wan: 5/10 s, 16:9 only, no audio, no seed, text only.
 */
const MODELS = [
  {
    id: 'acme/veo',
    canonical_slug: 'acme/veo-20260101',
    name: 'Acme: Veo',
    supported_durations: [4, 6, 8],
    supported_resolutions: ['720p', '1080p'],
    supported_aspect_ratios: ['16:9', '9:16'],
    supported_frame_images: ['first_frame', 'last_frame'],
    generate_audio: true,
    seed: true,
  },
  {
    id: 'acme/wan',
    canonical_slug: 'acme/wan-20260101',
    name: 'Acme: Wan',
    supported_durations: [5, 10],
    supported_resolutions: ['480p', '720p'],
    supported_aspect_ratios: ['16:9'],
    supported_frame_images: [],
    generate_audio: false,
    seed: false,
  },
];

interface VideoJob {
  id: string;
  body: Record<string, unknown>;
  status: VideoStatus;
  polls: number;
  markers: Set<string>;
  callbackUrl?: string;
}

export interface FakeOpenRouter extends FakeServer {
  key: string;
  secret: string;
  jobs: Map<string, VideoJob>;
  /** Webhooks sent, as sent (with their signature header). */
  webhooks: (Webhook & { url: string })[];
}

/** OpenRouter's error envelope. */
const error = (res: Response, code: number, message: string) => res.status(code).json({ error: { code, message } });

/**
 * A fake of OpenRouter's video API (https://openrouter.ai/docs/api_reference/videos) under /api/v1:
 * `POST /videos` (202 `{ id, polling_url, status: pending }`), `GET /videos/{id}` (pending, then
 * in_progress, then a terminal status), `GET /videos/{id}/content?index=0` (the mp4, with the key),
 * `GET /videos/models`. A job ends on its `completeAfterPolls + 1`-th poll: completed, or per the
 * prompt's markers [or:failed], [or:cancelled], [or:expired]; [or:never] stays in_progress;
 * [or:submit-500] and [or:submit-429] refuse the submit. A job with callback_url then gets a webhook
 * `{ type: video.generation.<status>, created_at, data }` signed with `X-OpenRouter-Signature`.
 */
export async function startFakeOpenRouter(
  opts: { completeAfterPolls?: number; key?: string; secret?: string } = {},
): Promise<FakeOpenRouter> {
  const completeAfter = opts.completeAfterPolls ?? 2;
  const key = opts.key ?? FAKE_OPENROUTER_KEY;
  const secret = opts.secret ?? FAKE_OPENROUTER_SECRET;
  const jobs = new Map<string, VideoJob>();
  const webhooks: FakeOpenRouter['webhooks'] = [];

  const view = (j: VideoJob) => ({
    id: j.id,
    polling_url: `/api/v1/videos/${j.id}`,
    status: j.status,
    ...(j.status === 'pending' ? {} : { generation_id: `gen-${j.id}` }),
    ...(j.status === 'completed'
      ? { unsigned_urls: [`/api/v1/videos/${j.id}/content?index=0`], usage: { cost: 0.4, is_byok: false } }
      : {}),
    ...(j.status === 'failed' ? { error: 'Upstream provider error: safety system rejected the prompt' } : {}),
  });

  const finish = (j: VideoJob, status: VideoStatus) => {
    j.status = status;
    if (!j.callbackUrl) return;
    const body = JSON.stringify({
      type: `video.generation.${status}`,
      created_at: new Date().toISOString(),
      data: { ...view(j), model: j.body.model },
    });
    const headers = {
      'content-type': 'application/json',
      'x-openrouter-signature': signOpenRouterWebhook(secret, Math.floor(Date.now() / 1000), body),
      'x-openrouter-idempotency-key': `${j.id}:${status}`,
    };
    sendWebhook(webhooks, j.callbackUrl, headers, body);
  };

  const submit = (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const model = MODELS.find((m) => m.id === body.model);
    if (!model) return void error(res, 400, `Model ${String(body.model)} does not support video generation`);
    if (typeof body.prompt !== 'string' || !body.prompt) return void error(res, 400, 'prompt is required');
    const markers = markersIn(body.prompt, 'or');
    if (markers.has('submit-500')) return void error(res, 500, 'Internal Server Error');
    if (markers.has('submit-429')) return void error(res, 429, 'Rate limit exceeded');
    if (body.duration !== undefined && !model.supported_durations.includes(Number(body.duration)))
      return void error(res, 400, `duration ${String(body.duration)} is not supported`);
    if (body.aspect_ratio !== undefined && !model.supported_aspect_ratios.includes(String(body.aspect_ratio)))
      return void error(res, 400, 'aspect_ratio is not supported');
    const j: VideoJob = {
      id: `vid-${randomBytes(10).toString('hex')}`,
      body,
      status: 'pending',
      polls: 0,
      markers,
      callbackUrl: typeof body.callback_url === 'string' ? body.callback_url : undefined,
    };
    jobs.set(j.id, j);
    res.status(202).json({ id: j.id, polling_url: `/api/v1/videos/${j.id}`, status: 'pending' });
  };

  const server = await startFakeServer({ tls: true }, (app) => {
    app.get('/api/v1/videos/models', (_req, res) => void res.json({ data: MODELS }));
    app.use('/api/v1', bearer(key, { error: { code: 401, message: 'No auth credentials found' } }));
    app.post('/api/v1/videos', submit);
    app.get('/api/v1/videos/:id', (req, res) => {
      const j = jobs.get(String(req.params.id));
      if (!j) return void error(res, 404, 'Video generation job not found');
      if (j.status === 'pending' || j.status === 'in_progress') {
        j.polls += 1;
        const terminal = (['failed', 'cancelled', 'expired'] as const).find((s) => j.markers.has(s)) ?? 'completed';
        if (j.polls > completeAfter && !j.markers.has('never')) finish(j, terminal);
        else if (j.polls > 1) j.status = 'in_progress';
      }
      res.json(view(j));
    });
    app.get('/api/v1/videos/:id/content', (req, res) => {
      const j = jobs.get(String(req.params.id));
      if (!j || j.status !== 'completed') return void error(res, 404, 'Video content not found');
      if (String(req.query.index ?? '0') !== '0') return void error(res, 400, 'index out of range');
      res.type('video/mp4').sendFile(server.media.mp4);
    });
  });
  return Object.assign(server, { key, secret, jobs, webhooks, url: `${server.url}/api/v1` });
}
