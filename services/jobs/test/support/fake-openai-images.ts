import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import express, { type Request, type Response } from 'express';
import { bearer, markersIn, startFakeServer, type FakeServer } from './fake-upstream';

export const FAKE_OPENAI_KEY = 'sk-fake-openai';

/** Sizes each model family accepts (OpenAI's images reference); other models take any WxH, like LocalAI. */
const SIZES: Record<string, string[]> = {
  'gpt-image-1': ['1024x1024', '1536x1024', '1024x1536', 'auto'],
  'dall-e-3': ['1024x1024', '1792x1024', '1024x1792'],
  'dall-e-2': ['256x256', '512x512', '1024x1024'],
};

/** One `POST /images/edits` as received: its text fields and its files. */
export interface ReceivedEdit {
  fields: Record<string, string>;
  files: { field: string; name: string; type: string; bytes: Buffer }[];
}

export interface FakeOpenAiImages extends FakeServer {
  key: string;
  edits: ReceivedEdit[];
  /** Requests whose client went away before the answer (a cancelled call). */
  abandoned: string[];
  /** Answers the held ([oai:hold]) requests. */
  release(): void;
}

/** OpenAI's error envelope. */
function error(
  res: Response,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): void {
  res.status(status).json({ error: { message, type, param, code } });
}

/**
 * A fake of an OpenAI-compatible images server (https://platform.openai.com/docs/api-reference/images),
 * on plain http like a LocalAI box on the LAN: `POST /v1/images/generations` (JSON) and
 * `POST /v1/images/edits` (multipart: `image` or `image[]` files), answered synchronously with
 * `{ created, data: [...] }`: gpt-image models always `b64_json`; the others `url` (a file on this
 * server) unless `response_format: b64_json`. Markers in the prompt: [oai:500], [oai:429],
 * [oai:policy] (400 content_policy_violation), [oai:empty] (no data), [oai:foreign-url] (a plain
 * http URL on another host), [oai:hold] (answers only on release()).
 */
export async function startFakeOpenAiImages(opts: { key?: string } = {}): Promise<FakeOpenAiImages> {
  const key = opts.key ?? FAKE_OPENAI_KEY;
  const edits: ReceivedEdit[] = [];
  const abandoned: string[] = [];
  const held = new Set<() => void>();
  let png: Buffer = Buffer.alloc(0);
  let baseUrl = () => '';

  const answer = async (
    req: Request,
    res: Response,
    input: Record<string, string | number | undefined>,
    route: string,
  ) => {
    const model = String(input.model ?? '');
    const prompt = input.prompt;
    if (typeof prompt !== 'string' || !prompt)
      return error(
        res,
        400,
        "Missing required parameter: 'prompt'.",
        'invalid_request_error',
        'missing_required_parameter',
        'prompt',
      );
    const n = Number(input.n ?? 1);
    const size = String(input.size ?? '1024x1024');
    const sizes = SIZES[model];
    if (sizes && !sizes.includes(size))
      return error(
        res,
        400,
        `Invalid value: '${size}'. Supported values are: ${sizes.map((s) => `'${s}'`).join(', ')}.`,
        'invalid_request_error',
        'invalid_value',
        'size',
      );
    if (!sizes && !/^\d+x\d+$/.test(size))
      return error(res, 400, 'size must be WIDTHxHEIGHT', 'invalid_request_error', 'invalid_value', 'size');
    if (model === 'dall-e-3' && n !== 1)
      return error(res, 400, 'You must provide n=1 for this model.', 'invalid_request_error', null, 'n');
    const markers = markersIn(prompt, 'oai');
    if (markers.has('hold')) {
      const closed = new Promise<'closed'>((resolve) => res.on('close', () => resolve('closed')));
      const released = new Promise<'released'>((resolve) => held.add(() => resolve('released')));
      if ((await Promise.race([closed, released])) === 'closed') return void abandoned.push(`${route}:${prompt}`);
    }
    if (markers.has('500'))
      return error(res, 500, 'The server had an error while processing your request.', 'server_error');
    if (markers.has('429'))
      return error(res, 429, 'Rate limit reached for images per minute.', 'requests', 'rate_limit_exceeded');
    if (markers.has('policy'))
      return error(
        res,
        400,
        'Your request was rejected as a result of our safety system.',
        'image_generation_user_error',
        'content_policy_violation',
      );
    if (markers.has('empty')) return void res.json({ created: Math.floor(Date.now() / 1000), data: [] });
    const b64 = model.startsWith('gpt-image') || input.response_format === 'b64_json';
    const data = Array.from({ length: n }, () => {
      if (markers.has('foreign-url')) return { url: 'http://198.51.100.7/image.png' };
      return b64
        ? { b64_json: png.toString('base64') }
        : { url: `${baseUrl()}/generated-images/${randomBytes(8).toString('hex')}.png`, revised_prompt: prompt };
    });
    res.json({
      created: Math.floor(Date.now() / 1000),
      data,
      ...(model.startsWith('gpt-image') ? { usage: { total_tokens: 100, input_tokens: 50, output_tokens: 50 } } : {}),
    });
  };

  const server = await startFakeServer({ tls: false }, (app, base) => {
    baseUrl = base;
    // LocalAI serves what it made from its own origin, without the key.
    app.get('/generated-images/:file', (_req, res) => void res.type('image/png').send(png));
    app.use(
      '/v1',
      bearer(key, {
        error: {
          message: 'Incorrect API key provided.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      }),
    );
    app.post(
      '/v1/images/generations',
      (req, res) => void answer(req, res, (req.body ?? {}) as Record<string, string>, 'generations'),
    );
    app.post('/v1/images/edits', express.raw({ type: 'multipart/form-data', limit: '50mb' }), async (req, res) => {
      // Parsed with the platform's own multipart reader (undici's FormData).
      const form = await new globalThis.Response(req.body as Buffer, {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      const edit: ReceivedEdit = { fields: {}, files: [] };
      for (const [field, value] of form.entries()) {
        if (typeof value === 'string') edit.fields[field] = value;
        else
          edit.files.push({ field, name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
      }
      edits.push(edit);
      if (!edit.files.some((f) => f.field === 'image' || f.field === 'image[]'))
        return error(
          res,
          400,
          "Missing required parameter: 'image'.",
          'invalid_request_error',
          'missing_required_parameter',
          'image',
        );
      await answer(req, res, edit.fields, 'edits');
    });
  });
  png = await readFile(server.media.png);
  return Object.assign(server, {
    key,
    edits,
    abandoned,
    url: `${server.url}/v1`,
    release: () => {
      for (const r of held) r();
      held.clear();
    },
  });
}
