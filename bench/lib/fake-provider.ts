import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { testTls } from '../../test-e2e/support/tls';

/** The key the bench provider accepts (`FAL_KEY` of the bench fleet). */
export const BENCH_FAL_KEY = 'bench-fal-key';

/** A 1x1 PNG: the result the jobs service copies into its storage. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

interface HeldRequest {
  id: string;
  /** owner/app: the prefix of status and result paths. */
  app: string;
  jobId?: string;
  /** The fal_webhook URL the jobs service gave at submit (our gateway's provider callback). */
  callbackUrl?: string;
  completed: boolean;
  statusCalls: number;
}

export interface BenchProvider {
  /** https://127.0.0.1:<port>, for FAL_QUEUE_URL. */
  url: string;
  /** Its webhook signing keys, for FAL_WEBHOOK_JWKS_URL. */
  jwksUrl: string;
  apiKey: string;
  /** Certificate to trust (NODE_EXTRA_CA_CERTS of the fleet). */
  caPath: string;
  /** Requests submitted so far. */
  submitted: () => number;
  /** TLS connections accepted so far (few under load when callers keep them alive). */
  connections: () => number;
  /** Status polls received for a job's request (0 when unknown). */
  statusCalls: (jobId: string) => number;
  /** The instant (performance.now()) of every status poll received, in order. */
  statusCallTimes: () => readonly number[];
  /**
   * Completes a job's request now, the way fal does when generation ends: from this instant status
   * answers COMPLETED, and the completion callback is sent to the job's fal_webhook URL. Returns the
   * instant (performance.now()) the provider reported completion.
   */
  complete: (jobId: string) => number;
  /** Sends a job's callback without completing it (makes the jobs service poll due jobs now). */
  poke: (jobId: string) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * A fal queue API that costs nothing: submit answers at once with a request id, and the request
 * stays IN_PROGRESS until the bench calls complete(), when it calls back with the result as fal
 * does (signed, the payload in the body). HTTPS with the test certificate, as the jobs
 * service only speaks https to its provider and only copies https results. Images only (a 1x1 PNG).
 */
export interface BenchProviderOptions {
  /** false: never call back (an upstream without callbacks: completion is found by polling only). */
  callbacks?: boolean;
}

export async function startBenchProvider(opts: BenchProviderOptions = {}): Promise<BenchProvider> {
  const callbacks = opts.callbacks ?? true;
  const statusTimes: number[] = [];
  const tls = await testTls();
  const requests = new Map<string, HeldRequest>();
  const byJob = new Map<string, HeldRequest>();
  const deliveries = new Set<Promise<unknown>>();
  let base = '';

  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };

  const result = (r: HeldRequest) => ({
    images: [{ url: `${base}/media/${r.id}.png`, content_type: 'image/png', width: 1, height: 1 }],
    seed: 1,
  });

  // fal signs its webhooks with ED25519 and publishes the public keys as a JWKS.
  const signing = generateKeyPairSync('ed25519');
  const jwks = { keys: [{ ...signing.publicKey.export({ format: 'jwk' }), kid: 'bench', alg: 'EdDSA', use: 'sig' }] };

  const server = https.createServer({ key: tls.key, cert: tls.cert, keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://fake');
      if (req.method === 'GET' && url.pathname === '/.well-known/jwks.json') return json(res, 200, jwks);
      const media = /^\/media\/([0-9a-f-]+)\.png$/.exec(url.pathname);
      if (req.method === 'GET' && media) {
        if (!requests.has(media[1])) return void res.writeHead(404).end();
        return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length }).end(PNG);
      }
      if (req.headers.authorization !== `Key ${BENCH_FAL_KEY}`) return json(res, 401, { detail: 'Unauthorized' });

      const m = /^\/([^/]+)\/([^/]+)\/requests\/([0-9a-f-]+)(\/status|\/cancel)?$/.exec(url.pathname);
      if (m) {
        const r = requests.get(m[3]);
        if (!r || r.app !== `${m[1]}/${m[2]}`) return json(res, 404, { detail: 'Request not found' });
        if (m[4] === '/status' && req.method === 'GET') {
          r.statusCalls += 1;
          statusTimes.push(performance.now());
          return json(res, 200, {
            status: r.completed ? 'COMPLETED' : 'IN_PROGRESS',
            request_id: r.id,
            response_url: `${base}/${r.app}/requests/${r.id}`,
            logs: null,
          });
        }
        if (m[4] === '/cancel' && req.method === 'PUT') return json(res, 202, { status: 'CANCELLATION_REQUESTED' });
        if (!m[4] && req.method === 'GET')
          return r.completed ? json(res, 200, result(r)) : json(res, 400, { detail: 'Request is still in progress' });
        return json(res, 405, { detail: 'Method not allowed' });
      }

      // Submit: POST to any endpoint path (owner/app[/subpath...]).
      const segments = url.pathname.split('/').filter(Boolean);
      if (req.method !== 'POST' || segments.length < 2) return json(res, 404, { detail: 'Not found' });
      let input: unknown;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return json(res, 422, { detail: 'invalid JSON' });
      }
      if (typeof (input as { prompt?: unknown } | null)?.prompt !== 'string')
        return json(res, 422, { detail: [{ loc: ['body', 'prompt'], msg: 'field required' }] });
      const r: HeldRequest = {
        id: randomUUID(),
        app: `${segments[0]}/${segments[1]}`,
        completed: false,
        statusCalls: 0,
      };
      const webhook = url.searchParams.get('fal_webhook');
      if (webhook) {
        r.callbackUrl = webhook;
        r.jobId = /\/api\/providers\/callback\/([^/?]+)/.exec(webhook)?.[1];
        if (r.jobId) byJob.set(r.jobId, r);
      }
      requests.set(r.id, r);
      const requestBase = `${base}/${r.app}/requests/${r.id}`;
      json(res, 200, {
        request_id: r.id,
        status_url: `${requestBase}/status`,
        response_url: requestBase,
        cancel_url: `${requestBase}/cancel`,
        queue_position: 0,
      });
    });
  });
  let connections = 0;
  server.on('secureConnection', () => (connections += 1));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** fal's webhook signature headers of a body about `r`. */
  const signatureHeaders = (r: HeldRequest, text: string): Record<string, string> => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const digest = createHash('sha256').update(text).digest('hex');
    const content = Buffer.from(`${r.id}\nbench-user\n${timestamp}\n${digest}`);
    return {
      'x-fal-webhook-request-id': r.id,
      'x-fal-webhook-user-id': 'bench-user',
      'x-fal-webhook-timestamp': timestamp,
      'x-fal-webhook-signature': sign(null, content, signing.privateKey).toString('hex'),
    };
  };

  const sendCallback = (r: HeldRequest, body: unknown): Promise<void> => {
    if (!r.callbackUrl || !callbacks) return Promise.resolve();
    const text = JSON.stringify(body);
    const delivery = fetch(r.callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signatureHeaders(r, text) },
      body: text,
    })
      .then((res) => res.arrayBuffer())
      .then(
        () => undefined,
        () => undefined, // fal does not care whether the receiver was there
      );
    deliveries.add(delivery);
    void delivery.finally(() => deliveries.delete(delivery));
    return delivery;
  };

  const held = (jobId: string): HeldRequest => {
    const r = byJob.get(jobId);
    if (!r) throw new Error(`the bench provider has no request for ${jobId}`);
    return r;
  };

  return {
    url: base,
    jwksUrl: `${base}/.well-known/jwks.json`,
    apiKey: BENCH_FAL_KEY,
    caPath: tls.caPath,
    submitted: () => requests.size,
    connections: () => connections,
    statusCalls: (jobId) => byJob.get(jobId)?.statusCalls ?? 0,
    statusCallTimes: () => statusTimes,
    complete: (jobId) => {
      const r = held(jobId);
      r.completed = true;
      const at = performance.now();
      void sendCallback(r, { request_id: r.id, gateway_request_id: r.id, status: 'OK', payload: result(r) });
      return at;
    },
    poke: (jobId) => sendCallback(held(jobId), { request_id: held(jobId).id, status: 'IN_PROGRESS' }),
    close: async () => {
      await Promise.allSettled([...deliveries]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
