import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { signCallbackToken } from '@mf/runtime';
import { silentLogger } from '@mf/testing';
import { FalProvider } from '../src/providers/fal/fal-provider';
import type { CallbackDelivery } from '../src/providers/provider';
import { CallbackPolls } from '../src/usecases/callback-poll.usecase';
import { getJob, providerCallback } from '../src/usecases/read-jobs.usecase';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { routingOf, startHarness, type Harness } from './support/jobs-harness';

// A completion callback that carries the result: fal's webhook, signed with a key of its JWKS. With a
// valid signature the result in it completes the job (no status call, no result request); without
// one the callback is a nudge and the status and result are asked, as before.
const MEDIA_URL = 'https://cdn.fal.test/out.png';

interface Queue {
  url: string;
  /** Status and result requests received (submits and key fetches are not counted). */
  asked: string[];
  close: () => Promise<void>;
}

/** A plain-HTTP fal queue: submit answers an id, status COMPLETED, result one image; it serves `jwks` too. */
async function scriptedQueue(publicKey: KeyObject): Promise<Queue> {
  const asked: string[] = [];
  const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1' }] };
  const server = http.createServer((req, res) => {
    req.resume();
    const send = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const path = req.url ?? '';
    if (path === '/.well-known/jwks.json') return send(jwks);
    if (req.method === 'POST') return send({ request_id: randomUUID() });
    asked.push(path);
    if (path.endsWith('/status')) return send({ status: 'COMPLETED' });
    send({ images: [{ url: MEDIA_URL, content_type: 'image/png' }] });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** fal's webhook for `requestId` carrying the image, signed with `key`. */
function falWebhook(requestId: string, key: KeyObject): CallbackDelivery {
  const body = JSON.stringify({
    request_id: requestId,
    gateway_request_id: requestId,
    status: 'OK',
    payload: { images: [{ url: MEDIA_URL, content_type: 'image/png' }] },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const digest = createHash('sha256').update(body).digest('hex');
  const signature = sign(null, Buffer.from(`${requestId}\nuser-1\n${timestamp}\n${digest}`), key).toString('hex');
  return {
    headers: {
      'x-fal-webhook-request-id': requestId,
      'x-fal-webhook-user-id': 'user-1',
      'x-fal-webhook-timestamp': timestamp,
      'x-fal-webhook-signature': signature,
    },
    body,
  };
}

describe('a provider callback that carries the result', () => {
  let h: Harness;
  let queue: Queue;
  let user = 500;
  const falKeys = generateKeyPairSync('ed25519');
  const downloads: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    queue = await scriptedQueue(falKeys.publicKey);
    const fal = new FalProvider({
      queueUrl: queue.url,
      apiKey: 'k',
      logger: silentLogger(),
      timeoutMs: 5000,
      webhookJwksUrl: `${queue.url}/.well-known/jwks.json`,
    });
    h.ctx.routing = routingOf([fal]);
    h.ctx.downloadResult = (url, write) => {
      downloads.push(url);
      return write(Readable.from([Buffer.from('png')]));
    };
  });
  afterAll(async () => {
    await queue?.close();
    await h?.close();
  });

  /** Submits an image job to fal; resolves its id, upstream request id and callback token. */
  const submitted = async () => {
    const u = ++user;
    h.billing.balances.set(u, 50);
    const { job_id } = await submitJob(h.ctx, {
      user_id: u,
      api_key_id: 1,
      type: 'image',
      params: { prompt: 'called back', image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 1 },
    });
    const row = await h.db('jobs').where({ id: job_id }).first<{ provider_request_id: string }>();
    const token = signCallbackToken(h.ctx.settings.callbackSecret, {
      jobId: job_id,
      attempt: 1,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    return { u, jobId: job_id, requestId: row.provider_request_id, token };
  };

  /** The status and the result were both asked, once each (the result alongside the status, as after a callback). */
  const statusAndResult = () =>
    queue.asked.length === 2 && queue.asked.filter((p) => p.endsWith('/status')).length === 1;

  const callBack = async (jobId: string, token: string, webhook?: CallbackDelivery) => {
    const polls = new CallbackPolls(h.ctx, () => undefined);
    const answer = await providerCallback(
      h.ctx,
      { job_id: jobId, token, attempt: 1, ...(webhook ? { webhook } : {}) },
      (id, cb) => polls.pollNow(id, cb),
      (id, n, providers, cb) => polls.pollIfCurrent(id, n, providers, cb),
    );
    await polls.drain();
    return answer;
  };

  it('completes the job from a signed callback without asking fal the status or the result', async () => {
    const { u, jobId, requestId, token } = await submitted();
    queue.asked.length = 0;
    downloads.length = 0;
    expect(await callBack(jobId, token, falWebhook(requestId, falKeys.privateKey))).toEqual({ accepted: true });
    expect(queue.asked).toEqual([]);
    // Still copied into our storage: fal's URLs expire.
    expect(downloads).toEqual([MEDIA_URL]);
    expect(await getJob(h.ctx, { user_id: u, job_id: jobId })).toMatchObject({ status: 'completed' });
  });

  it('asks the status and the result when the callback carries no signature', async () => {
    const { u, jobId, token } = await submitted();
    queue.asked.length = 0;
    expect(await callBack(jobId, token)).toEqual({ accepted: true });
    expect(statusAndResult()).toBe(true);
    expect(await getJob(h.ctx, { user_id: u, job_id: jobId })).toMatchObject({ status: 'completed' });
  });

  it('asks the status when the signature is by a key fal does not publish, or the body is about another request', async () => {
    const forger = generateKeyPairSync('ed25519');
    const forged = await submitted();
    queue.asked.length = 0;
    expect(await callBack(forged.jobId, forged.token, falWebhook(forged.requestId, forger.privateKey))).toEqual({
      accepted: true,
    });
    expect(statusAndResult()).toBe(true);

    const other = await submitted();
    queue.asked.length = 0;
    expect(await callBack(other.jobId, other.token, falWebhook(randomUUID(), falKeys.privateKey))).toEqual({
      accepted: true,
    });
    expect(statusAndResult()).toBe(true);
    expect(await getJob(h.ctx, { user_id: other.u, job_id: other.jobId })).toMatchObject({ status: 'completed' });
  });
});
