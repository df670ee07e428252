import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import axios from 'axios';
import express, { type NextFunction, type Request, type Response } from 'express';
import { generate } from 'selfsigned';

/** The key the fake accepts unless told otherwise. */
export const FAKE_FAL_KEY = 'fake-fal-key';

export interface FakeFalOptions {
  /** Status calls answered IN_QUEUE / IN_PROGRESS before a request reports COMPLETED. Default 2. */
  completeAfterPolls?: number;
  /** Where the sample mp4 and png live (generated once, reused when present). Default: a temp dir. */
  mediaDir?: string;
  /** The only key accepted in `Authorization: Key <key>`. Default FAKE_FAL_KEY. */
  apiKey?: string;
  /** A request submitted with fal_webhook completes (and its webhook is sent) this long after submit, unless polls finish it first. Default 300. */
  webhookDelayMs?: number;
}

export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, unknown>;
  body: unknown;
  headers: { authorization?: string };
}

export interface FakeFal {
  /** https://127.0.0.1:<port>, the queue base URL (and the host of the media it serves). */
  url: string;
  apiKey: string;
  /** PEM of the CA that signed the server certificate: trust it with an https.Agent `ca`. */
  caPem: string;
  /** The same PEM in a file, for NODE_EXTRA_CA_CERTS in child processes. */
  caPath: string;
  /** Every HTTP call received, in order (rejected ones and media fetches included). */
  calls: RecordedCall[];
  /** Webhook URLs the fake has posted to, one entry per delivery attempt. */
  webhooksSent: string[];
  close(): Promise<void>;
}

const run = promisify(execFile);

type Marker = 'submit-error' | 'submit-422' | 'submit-no-id' | 'fail' | 'never' | 'empty' | 'flaky-status';

interface FakeRequest {
  id: string;
  /** owner/app: the prefix of status, result and cancel paths. */
  app: string;
  kind: 'video' | 'image';
  numImages: number;
  markers: Set<string>;
  /** Status calls answered with a queue state (the flaky 503 does not count). */
  polls: number;
  statusCalls: number;
  completed: boolean;
  cancelled: boolean;
  webhookUrl?: string;
  timer?: NodeJS.Timeout;
}

/**
 * A fake of fal's queue API over HTTPS with a throwaway CA. The prompt's markers choose the behaviour:
 * [fal:submit-error] submit 500; [fal:submit-422] submit 422; [fal:submit-no-id] submit 200 without
 * request_id; [fal:fail] result 422 after completing; [fal:never] IN_PROGRESS forever; [fal:empty] result {};
 * [fal:flaky-status] first status call 503. A request is an image request when its input has num_images.
 */
export async function startFakeFal(opts: FakeFalOptions = {}): Promise<FakeFal> {
  const completeAfterPolls = opts.completeAfterPolls ?? 2;
  const apiKey = opts.apiKey ?? FAKE_FAL_KEY;
  const webhookDelayMs = opts.webhookDelayMs ?? 300;
  const ownDir = await mkdtemp(path.join(tmpdir(), 'fake-fal-'));
  const mediaDir = opts.mediaDir ?? ownDir;
  const [tls, media] = await Promise.all([makeCertificates(), makeMedia(mediaDir)]);
  const caPath = path.join(ownDir, 'ca.pem');
  await writeFile(caPath, tls.caPem);

  const calls: RecordedCall[] = [];
  const webhooksSent: string[] = [];
  const requests = new Map<string, FakeRequest>();
  const deliveries = new Set<Promise<void>>();
  let base = '';

  const resultOf = (r: FakeRequest): { code: number; body: unknown } => {
    if (r.markers.has('fail')) return { code: 422, body: { detail: [{ msg: 'content policy' }] } };
    if (r.markers.has('empty')) return { code: 200, body: {} };
    if (r.kind === 'video') {
      return {
        code: 200,
        body: {
          video: { url: `${base}/media/${r.id}.mp4`, content_type: 'video/mp4', file_name: 'output.mp4' },
          seed: 1,
        },
      };
    }
    const images = Array.from({ length: r.numImages }, (_, i) => ({
      url: `${base}/media/${r.id}-${i + 1}.png`,
      content_type: 'image/png',
      width: 320,
      height: 240,
    }));
    return { code: 200, body: { images, seed: 1 } };
  };

  const complete = (r: FakeRequest): void => {
    if (r.completed || r.cancelled || r.markers.has('never')) return;
    r.completed = true;
    clearTimeout(r.timer);
    if (!r.webhookUrl) return;
    webhooksSent.push(r.webhookUrl);
    const { code, body } = resultOf(r);
    const ok = code >= 200 && code < 300;
    const payload = ok
      ? { request_id: r.id, gateway_request_id: r.id, status: 'OK', payload: body }
      : {
          request_id: r.id,
          gateway_request_id: r.id,
          status: 'ERROR',
          error: `Invalid status code: ${code}`,
          payload: body,
        };
    const delivery = axios
      .post(r.webhookUrl, payload, { timeout: 2000, validateStatus: () => true, maxRedirects: 0 })
      .then(
        () => undefined,
        () => undefined, // fal does not care whether the receiver was there
      )
      .finally(() => deliveries.delete(delivery));
    deliveries.add(delivery);
  };

  const queueState = (r: FakeRequest): 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' => {
    if (r.cancelled) return 'IN_QUEUE';
    if (r.markers.has('never')) return 'IN_PROGRESS';
    if (!r.completed) {
      r.polls += 1;
      if (r.polls <= completeAfterPolls) return r.polls === 1 ? 'IN_QUEUE' : 'IN_PROGRESS';
      complete(r);
    }
    return 'COMPLETED';
  };

  /** The request named by the path, when it was submitted to that app. */
  const findRequest = (req: Request, res: Response): FakeRequest | undefined => {
    const { owner, app, id } = req.params as Record<string, string>;
    const r = requests.get(id);
    if (!r || r.app !== `${owner}/${app}`) {
      res.status(404).json({ detail: 'Request not found' });
      return undefined;
    }
    return r;
  };

  const server = express();
  server.disable('x-powered-by');
  server.use(express.json());
  server.use((req: Request, _res: Response, next: NextFunction) => {
    calls.push({
      method: req.method,
      path: req.path,
      query: { ...(req.query as Record<string, unknown>) },
      body: req.body as unknown,
      headers: { authorization: req.headers.authorization },
    });
    next();
  });

  // Media is public, like fal's CDN: whoever holds the URL may fetch it.
  server.get('/media/:file', (req: Request, res: Response) => {
    const match = /^(.+?)(?:-(\d+))?\.(mp4|png)$/.exec(String(req.params.file));
    const r = match ? (requests.get(match[1]) ?? requests.get(`${match[1]}-${match[2]}`)) : undefined;
    if (!match || !r) return void res.status(404).end();
    if (match[3] === 'mp4') return void res.type('video/mp4').sendFile(media.mp4);
    res.type('image/png').sendFile(media.png);
  });

  server.use((req: Request, res: Response, next: NextFunction) => {
    if (req.headers.authorization !== `Key ${apiKey}`) return void res.status(401).json({ detail: 'Unauthorized' });
    next();
  });

  server.get('/:owner/:app/requests/:id/status', (req: Request, res: Response) => {
    const r = findRequest(req, res);
    if (!r) return;
    r.statusCalls += 1;
    if (r.markers.has('flaky-status') && r.statusCalls === 1)
      return void res.status(503).type('text/plain').send('upstream unavailable');
    const status = queueState(r);
    res.json({
      status,
      request_id: r.id,
      response_url: `${base}/${r.app}/requests/${r.id}`,
      ...(status === 'IN_QUEUE' ? { queue_position: 0 } : {}),
      logs: null,
    });
  });

  server.get('/:owner/:app/requests/:id', (req: Request, res: Response) => {
    const r = findRequest(req, res);
    if (!r) return;
    if (!r.completed) return void res.status(400).json({ detail: 'Request is still in progress' });
    const { code, body } = resultOf(r);
    // What fal billed for the request (priced with the route's per_unit): one unit a request here.
    if (code === 200) res.setHeader('x-fal-billable-units', '1');
    res.status(code).json(body);
  });

  server.put('/:owner/:app/requests/:id/cancel', (req: Request, res: Response) => {
    const r = findRequest(req, res);
    if (!r) return;
    if (r.completed) return void res.status(400).json({ status: 'ALREADY_COMPLETED' });
    r.cancelled = true;
    clearTimeout(r.timer);
    res.status(202).json({ status: 'CANCELLATION_REQUESTED' });
  });

  // Submit: POST to any endpoint path (owner/app[/subpath...]).
  server.use((req: Request, res: Response) => {
    const segments = req.path.split('/').filter(Boolean);
    if (req.method !== 'POST' || segments.length < 2) return void res.status(404).json({ detail: 'Not found' });
    const input = (req.body ?? {}) as Record<string, unknown>;
    if (typeof input.prompt !== 'string') {
      return void res
        .status(422)
        .json({ detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' }] });
    }
    const markers = new Set([...input.prompt.matchAll(/\[fal:([a-z0-9-]+)\]/g)].map((m) => m[1] as Marker));
    if (markers.has('submit-error')) return void res.status(500).json({ detail: 'internal' });
    if (markers.has('submit-422')) {
      return void res.status(422).json({
        detail: [
          { loc: ['body', 'duration'], msg: "unexpected value; permitted: '5', '10'", type: 'value_error.const' },
        ],
      });
    }
    if (markers.has('submit-no-id')) return void res.status(200).json({ status: 'IN_QUEUE' });

    const id = randomUUID();
    const app = `${segments[0]}/${segments[1]}`;
    const isImage = 'num_images' in input;
    const r: FakeRequest = {
      id,
      app,
      kind: isImage ? 'image' : 'video',
      numImages: isImage ? Math.max(1, Number(input.num_images) || 1) : 0,
      markers,
      polls: 0,
      statusCalls: 0,
      completed: false,
      cancelled: false,
    };
    const webhook = req.query.fal_webhook;
    if (typeof webhook === 'string' && webhook) {
      r.webhookUrl = webhook;
      r.timer = setTimeout(() => complete(r), webhookDelayMs);
    }
    requests.set(id, r);
    const requestBase = `${base}/${app}/requests/${id}`;
    res.json({
      request_id: id,
      status_url: `${requestBase}/status`,
      response_url: requestBase,
      cancel_url: `${requestBase}/cancel`,
      queue_position: 0,
    });
  });

  const httpsServer = https.createServer({ key: tls.key, cert: tls.cert }, server);
  await new Promise<void>((resolve, reject) => {
    httpsServer.once('error', reject);
    httpsServer.listen(0, '127.0.0.1', () => resolve());
  });
  base = `https://127.0.0.1:${(httpsServer.address() as AddressInfo).port}`;

  return {
    url: base,
    apiKey,
    caPem: tls.caPem,
    caPath,
    calls,
    webhooksSent,
    close: async () => {
      for (const r of requests.values()) clearTimeout(r.timer);
      await Promise.allSettled([...deliveries]);
      httpsServer.closeAllConnections();
      await new Promise<void>((resolve) => httpsServer.close(() => resolve()));
      await rm(ownDir, { recursive: true, force: true });
    },
  };
}

/** A throwaway CA and a server certificate for 127.0.0.1 signed by it (EC keys: fast to make). */
export async function makeCertificates(): Promise<{ caPem: string; key: string; cert: string }> {
  const notAfterDate = new Date(Date.now() + 24 * 3600 * 1000);
  // A name of its own per CA: a process trusting two fakes (NODE_EXTRA_CA_CERTS) finds each one's issuer by name.
  const ca = await generate(
    [{ name: 'commonName', value: `fake upstream test CA ${randomBytes(6).toString('hex')}` }],
    {
      keyType: 'ec',
      algorithm: 'sha256',
      notAfterDate,
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      ],
    },
  );
  const leaf = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  return { caPem: ca.cert, key: leaf.private, cert: leaf.cert };
}

/** A real 2 s 320x240 mp4 (h264 + aac) and a real png, made once per directory. */
export async function makeMedia(dir: string): Promise<{ mp4: string; png: string }> {
  await mkdir(dir, { recursive: true });
  const mp4 = path.resolve(dir, 'fake-fal-sample.mp4');
  const png = path.resolve(dir, 'fake-fal-sample.png');
  await Promise.all([
    ensureFile(mp4, (out) => [
      ...[
        '-f',
        'lavfi',
        '-i',
        'testsrc=duration=2:size=320x240:rate=25',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:duration=2',
      ],
      ...[
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-shortest',
        '-movflags',
        '+faststart',
        out,
      ],
    ]),
    ensureFile(png, (out) => ['-f', 'lavfi', '-i', 'testsrc=size=320x240', '-frames:v', '1', out]),
  ]);
  return { mp4, png };
}

/** Runs ffmpeg into a temp name then renames, so fakes sharing a mediaDir never serve half a file. */
async function ensureFile(file: string, args: (out: string) => string[]): Promise<void> {
  if (existsSync(file)) return;
  const ext = path.extname(file); // ffmpeg picks the container from the extension
  const tmp = `${file.slice(0, -ext.length)}.${randomUUID()}.tmp${ext}`;
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args(tmp)]);
  await rename(tmp, file);
}
