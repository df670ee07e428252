import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { signStandardWebhook } from '../../src/providers/replicate/webhook-signature';
import { bearer, markersIn, sendWebhook, startFakeServer, type FakeServer, type Webhook } from './fake-upstream';

export const FAKE_REPLICATE_TOKEN = 'r8_fake_token';
export const FAKE_REPLICATE_SECRET = `whsec_${Buffer.from('fake replicate signing key 123456').toString('base64')}`;

/**
 * Input schemas of the models the fake knows, in Cog's OpenAPI shape (enums behind allOf/$ref).
 * acme/video offers durations 4-10 s (not 15), three aspect ratios; acme/image makes 1-4 images.
 */
const SCHEMAS: Record<string, unknown> = {
  'acme/video': {
    components: {
      schemas: {
        Input: {
          type: 'object',
          properties: {
            prompt: { type: 'string' },
            duration: { type: 'integer', enum: [4, 5, 6, 8, 10] },
            aspect_ratio: { allOf: [{ $ref: '#/components/schemas/aspect_ratio' }] },
            resolution: { allOf: [{ $ref: '#/components/schemas/resolution' }] },
            seed: { type: 'integer' },
            image: { type: 'string', format: 'uri' },
          },
        },
        aspect_ratio: { type: 'string', enum: ['16:9', '9:16', '1:1'] },
        resolution: { type: 'string', enum: ['480p', '720p'] },
      },
    },
  },
  'acme/image': {
    components: {
      schemas: {
        Input: {
          type: 'object',
          properties: {
            prompt: { type: 'string' },
            aspect_ratio: { allOf: [{ $ref: '#/components/schemas/aspect_ratio' }] },
            num_outputs: { type: 'integer', minimum: 1, maximum: 4 },
            seed: { type: 'integer' },
            output_format: { type: 'string', enum: ['png', 'webp'] },
            input_image: { type: 'string', format: 'uri' },
          },
        },
        aspect_ratio: { type: 'string', enum: ['1:1', '16:9', '9:16', '4:3', '3:4'] },
      },
    },
  },
};

interface Prediction {
  id: string;
  model: string;
  version: string | null;
  input: Record<string, unknown>;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  logs: string;
  output: unknown;
  error: string | null;
  polls: number;
  markers: Set<string>;
  webhook?: string;
}

export interface FakeReplicate extends FakeServer {
  token: string;
  secret: string;
  predictions: Map<string, Prediction>;
  /** Webhooks sent, as sent (with their signature headers). */
  webhooks: (Webhook & { url: string })[];
}

/**
 * A fake of Replicate's HTTP API (https://replicate.com/docs/reference/http) with the documented
 * fields and statuses. Markers in input.prompt: [rep:submit-error] 500, [rep:submit-429] 429,
 * [rep:fail] failed, [rep:never] processing forever. A prediction succeeds on its
 * `completeAfterPolls + 1`-th GET (its logs show tqdm progress until then) and then sends its
 * webhook, signed with Standard Webhooks headers.
 */
export async function startFakeReplicate(
  opts: { completeAfterPolls?: number; token?: string; secret?: string } = {},
): Promise<FakeReplicate> {
  const completeAfter = opts.completeAfterPolls ?? 2;
  const token = opts.token ?? FAKE_REPLICATE_TOKEN;
  const secret = opts.secret ?? FAKE_REPLICATE_SECRET;
  const predictions = new Map<string, Prediction>();
  const webhooks: FakeReplicate['webhooks'] = [];
  let baseUrl = () => '';

  const view = (p: Prediction) => ({
    id: p.id,
    model: p.model,
    version: p.version,
    input: p.input,
    logs: p.logs,
    output: p.output,
    error: p.error,
    status: p.status,
    // The hardware time Replicate bills (priced with the route's per_compute_second).
    ...(p.status === 'succeeded' ? { metrics: { predict_time: 2.5 } } : {}),
    created_at: new Date().toISOString(),
    urls: { get: `${baseUrl()}/v1/predictions/${p.id}`, cancel: `${baseUrl()}/v1/predictions/${p.id}/cancel` },
  });

  const finish = (p: Prediction, status: 'succeeded' | 'failed' | 'canceled') => {
    p.status = status;
    if (status === 'succeeded') {
      const n = Number(p.input.num_outputs ?? 1);
      p.output =
        p.model === 'acme/image' || 'output_format' in p.input
          ? Array.from({ length: n }, (_, i) => `${baseUrl()}/media/${p.id}-${i}.png`)
          : `${baseUrl()}/media/${p.id}.mp4`;
    }
    if (status === 'failed') p.error = 'CUDA out of memory';
    if (!p.webhook) return;
    const body = JSON.stringify(view(p));
    const id = `msg_${randomBytes(8).toString('hex')}`;
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': signStandardWebhook(secret, id, ts, body),
    };
    sendWebhook(webhooks, p.webhook, headers, body);
  };

  const create = (model: string, version: string | null) => (req: Request, res: Response) => {
    const body = (req.body ?? {}) as {
      input?: Record<string, unknown>;
      webhook?: string;
      webhook_events_filter?: string[];
    };
    if (!body.input || typeof body.input.prompt !== 'string')
      return void res
        .status(422)
        .json({ title: 'Input validation failed', status: 422, detail: 'input.prompt is required' });
    const markers = markersIn(body.input.prompt, 'rep');
    if (markers.has('submit-error')) return void res.status(500).json({ detail: 'internal error' });
    if (markers.has('submit-429')) return void res.status(429).json({ title: 'Request was throttled', status: 429 });
    const p: Prediction = {
      id: randomBytes(13).toString('hex').slice(0, 26),
      model,
      version,
      input: body.input,
      status: 'starting',
      logs: '',
      output: null,
      error: null,
      polls: 0,
      markers,
      webhook: body.webhook,
    };
    predictions.set(p.id, p);
    res.status(201).json(view(p));
  };

  const server = await startFakeServer({ tls: true }, (app, base) => {
    baseUrl = base;
    app.get('/media/:file', (req, res) => {
      const file = String(req.params.file);
      res
        .type(file.endsWith('.mp4') ? 'video/mp4' : 'image/png')
        .sendFile(file.endsWith('.mp4') ? server.media.mp4 : server.media.png);
    });
    app.use(
      '/v1',
      bearer(token, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 }),
    );
    app.get('/v1/models/:owner/:name', (req, res) => {
      const key = `${req.params.owner}/${req.params.name}`;
      if (!SCHEMAS[key]) return void res.status(404).json({ detail: 'Not found.', status: 404 });
      res.json({
        owner: req.params.owner,
        name: req.params.name,
        latest_version: { id: 'v'.repeat(64), openapi_schema: SCHEMAS[key] },
      });
    });
    app.post('/v1/models/:owner/:name/predictions', (req, res) => {
      const key = `${req.params.owner}/${req.params.name}`;
      if (!SCHEMAS[key]) return void res.status(404).json({ detail: 'Not found.', status: 404 });
      create(key, null)(req, res);
    });
    app.post('/v1/predictions', (req, res) =>
      create('versioned/model', String((req.body as { version?: string }).version))(req, res),
    );
    app.get('/v1/predictions/:id', (req, res) => {
      const p = predictions.get(String(req.params.id));
      if (!p) return void res.status(404).json({ detail: 'Not found.', status: 404 });
      if (p.status === 'starting' || p.status === 'processing') {
        p.polls += 1;
        if (p.markers.has('fail') && p.polls > completeAfter) finish(p, 'failed');
        else if (!p.markers.has('never') && !p.markers.has('fail') && p.polls > completeAfter) finish(p, 'succeeded');
        else {
          p.status = 'processing';
          p.logs = `Using seed: 1\n${Math.min(90, p.polls * 40)}%|####      | ${p.polls * 4}/10 [00:0${p.polls}<00:05]\n`;
        }
      }
      res.json(view(p));
    });
    app.post('/v1/predictions/:id/cancel', (req, res) => {
      const p = predictions.get(String(req.params.id));
      if (!p) return void res.status(404).json({ detail: 'Not found.', status: 404 });
      if (p.status === 'starting' || p.status === 'processing') finish(p, 'canceled');
      res.json(view(p));
    });
  });
  return Object.assign(server, { token, secret, predictions, webhooks, url: `${server.url}/v1` });
}
