import { webhookOutboundRpc, webhooksRpc } from '@mf/contracts';
import { AppError } from '@mf/errors';
import {
  jobEventPayload,
  publishJobEvent,
  startHarness,
  waitFor,
  type Harness,
  type RunningDispatcher,
} from './support/dispatcher-harness';
import { Receiver } from './support/receiver';
import { verifyWebhookSignature } from './support/verify-signature';

/** The webhooks RPC as the gateway's admin CLI calls it. */
describe('webhook endpoints over RPC', () => {
  let h: Harness;
  let receiver: Receiver;
  let nextKey = 300;

  beforeAll(async () => {
    h = await startHarness();
    receiver = await Receiver.start();
  });

  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  /** Runs the test body against a dispatcher configured for it (one serves the RPC queue at a time). */
  async function withDispatcher(
    env: Record<string, string>,
    body: (d: RunningDispatcher) => Promise<void>,
  ): Promise<void> {
    const dispatcher = await h.startDispatcher(env);
    try {
      await body(dispatcher);
    } finally {
      await dispatcher.close();
    }
  }

  const local = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
  const strict = { WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE: 'false' };
  const set = (apiKeyId: number, userId: number, url: string) =>
    h.client.rpc(webhookOutboundRpc, 'setEndpoint', { api_key_id: apiKeyId, user_id: userId, url });

  const ALL_EVENTS = ['job.completed', 'job.failed', 'job.cancelled'];
  const savedEndpoint = (url: string) => ({
    url,
    events: ALL_EVENTS,
    signature_scheme: 'stripe',
    created_at: expect.any(String),
    updated_at: expect.any(String),
  });

  it('returns a new secret on the first save only, and keeps signing with it after a URL change', () =>
    withDispatcher(local, async (dispatcher) => {
      const apiKeyId = nextKey++;
      const first = await set(apiKeyId, 5, receiver.url('/old'));
      expect(first).toEqual({
        ...savedEndpoint(receiver.url('/old')),
        created: true,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      });

      const second = await set(apiKeyId, 5, receiver.url('/new'));
      expect(second).toEqual({ ...savedEndpoint(receiver.url('/new')), created: false });

      const handledBefore = await dispatcher.settled('event');
      const eventId = await publishJobEvent(
        h.client,
        'completed',
        jobEventPayload({ api_key_id: apiKeyId, user_id: 5 }),
      );
      await waitFor(async () => (await dispatcher.settled('event')) === handledBefore + 1, 'the delivery');
      const [req] = receiver.forEvent(eventId);
      expect(req.path).toBe('/new');
      expect(verifyWebhookSignature(first.secret!, req.headers, req.body)).toBe(true);
    }));

  it('rotates the secret by clear, save', () =>
    withDispatcher(local, async (dispatcher) => {
      const apiKeyId = nextKey++;
      const { secret: before } = await set(apiKeyId, 5, receiver.url());
      expect(await h.client.rpc(webhooksRpc, 'clearEndpoint', { api_key_id: apiKeyId, user_id: 5 })).toEqual({
        cleared: true,
      });
      expect(await h.client.rpc(webhooksRpc, 'clearEndpoint', { api_key_id: apiKeyId, user_id: 5 })).toEqual({
        cleared: false,
      });
      const { secret: after } = await set(apiKeyId, 5, receiver.url());
      expect(after).toMatch(/^whsec_/);
      expect(after).not.toBe(before);

      const handledBefore = await dispatcher.settled('event');
      const eventId = await publishJobEvent(
        h.client,
        'completed',
        jobEventPayload({ api_key_id: apiKeyId, user_id: 5 }),
      );
      await waitFor(async () => (await dispatcher.settled('event')) === handledBefore + 1, 'the delivery');
      const [req] = receiver.forEvent(eventId);
      expect(verifyWebhookSignature(after!, req.headers, req.body)).toBe(true);
      expect(verifyWebhookSignature(before!, req.headers, req.body)).toBe(false);
    }));

  it('shows the URL and dates but never the secret, and stores the secret only encrypted', () =>
    withDispatcher(local, async () => {
      const apiKeyId = nextKey++;
      expect(await h.client.rpc(webhooksRpc, 'getEndpoint', { api_key_id: apiKeyId, user_id: 5 })).toEqual({
        url: null,
        events: null,
        signature_scheme: null,
        created_at: null,
        updated_at: null,
        failing_since: null,
        disabled_at: null,
      });
      const { secret } = await set(apiKeyId, 5, receiver.url());

      const view = await h.client.rpc(webhooksRpc, 'getEndpoint', { api_key_id: apiKeyId, user_id: 5 });
      expect(view).toEqual({
        url: receiver.url(),
        events: ALL_EVENTS,
        signature_scheme: 'stripe',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        failing_since: null,
        disabled_at: null,
      });
      expect(new Date(view.created_at!).getTime()).toBeGreaterThan(Date.now() - 60_000);
      const row = await h.db('endpoints').first('*').where({ api_key_id: apiKeyId });
      expect(JSON.stringify(row)).not.toContain(secret!.slice('whsec_'.length));
    }));

  it('keeps the filter and scheme a save does not name, and gives a new secret with a new scheme', () =>
    withDispatcher(local, async () => {
      const apiKeyId = nextKey++;
      const ref = { api_key_id: apiKeyId, user_id: 5 };
      const first = await h.client.rpc(webhookOutboundRpc, 'setEndpoint', {
        ...ref,
        url: receiver.url(),
        events: ['job.failed'],
      });
      expect(first.events).toEqual(['job.failed']);
      const urlOnly = await set(apiKeyId, 5, receiver.url('/b'));
      expect(urlOnly).toMatchObject({ events: ['job.failed'], signature_scheme: 'stripe' });
      expect(urlOnly.secret).toBeUndefined();

      const standard = await h.client.rpc(webhookOutboundRpc, 'setEndpoint', {
        ...ref,
        url: receiver.url('/b'),
        signature_scheme: 'standard',
      });
      expect(standard).toMatchObject({ signature_scheme: 'standard', events: ['job.failed'], created: false });
      expect(standard.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const same = await h.client.rpc(webhookOutboundRpc, 'setEndpoint', {
        ...ref,
        url: receiver.url('/b'),
        signature_scheme: 'standard',
      });
      expect(same.secret).toBeUndefined();
    }));

  it('rotates the secret keeping the previous one for the overlap, or dropping it at once with 0', () =>
    withDispatcher(local, async () => {
      const apiKeyId = nextKey++;
      const ref = { api_key_id: apiKeyId, user_id: 5 };
      const { secret: original } = await set(apiKeyId, 5, receiver.url());
      const before = Date.now();
      const rolled = await h.client.rpc(webhooksRpc, 'rotateSecret', { ...ref, overlap_hours: 24 });
      expect(rolled.secret).toMatch(/^whsec_/);
      expect(rolled.secret).not.toBe(original);
      const expires = new Date(rolled.previous_secret_expires_at!).getTime();
      expect(expires).toBeGreaterThanOrEqual(before + 24 * 3_600_000 - 1000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000 + 1000);

      const now = await h.client.rpc(webhooksRpc, 'rotateSecret', { ...ref, overlap_hours: 0 });
      expect(now.previous_secret_expires_at).toBeNull();
      const row = await h.db('endpoints').first('*').where({ api_key_id: apiKeyId });
      expect(row.previous_secret_ciphertext).toBeNull();

      await expect(
        h.client.rpc(webhooksRpc, 'rotateSecret', { api_key_id: apiKeyId, user_id: 6, overlap_hours: 1 }),
      ).rejects.toMatchObject({ kind: 'not_found' });
      await expect(
        h.client.rpc(webhooksRpc, 'rotateSecret', { api_key_id: nextKey++, user_id: 5, overlap_hours: 1 }),
      ).rejects.toMatchObject({ kind: 'not_found' });
    }));

  it('answers 404 to another user for the key, and changes nothing', () =>
    withDispatcher(local, async () => {
      const apiKeyId = nextKey++;
      await set(apiKeyId, 5, receiver.url('/mine'));
      const notFound = { kind: 'not_found', body: { error: 'Webhook endpoint not found' } };
      await expect(set(apiKeyId, 6, receiver.url('/theirs'))).rejects.toMatchObject(notFound);
      await expect(
        h.client.rpc(webhooksRpc, 'getEndpoint', { api_key_id: apiKeyId, user_id: 6 }),
      ).rejects.toMatchObject(notFound);
      await expect(
        h.client.rpc(webhooksRpc, 'clearEndpoint', { api_key_id: apiKeyId, user_id: 6 }),
      ).rejects.toMatchObject(notFound);
      expect((await h.client.rpc(webhooksRpc, 'getEndpoint', { api_key_id: apiKeyId, user_id: 5 })).url).toBe(
        receiver.url('/mine'),
      );
    }));

  it('refuses private, loopback, link-local and metadata addresses and plain http when they are not allowed', () =>
    withDispatcher(strict, async () => {
      const urls = [
        'https://127.0.0.1/x',
        'https://169.254.169.254/latest',
        'https://localhost/x',
        'https://[::1]/x',
        'https://10.0.0.8/x',
        'http://example.com/x',
        'ftp://example.com/x',
        'https://no-such-host.invalid/x',
      ];
      const keys = urls.map(() => nextKey++);
      const refusals = await Promise.all(
        urls.map((url, i) =>
          set(keys[i], 5, url).then(
            () => ({ url, kind: 'accepted', error: '' }),
            (err: AppError) => ({ url, kind: err.kind, error: err.body.error }),
          ),
        ),
      );
      const privateAddress = 'url must not point to a private, loopback, link-local or metadata address';
      expect(refusals).toEqual([
        { url: 'https://127.0.0.1/x', kind: 'invalid', error: privateAddress },
        { url: 'https://169.254.169.254/latest', kind: 'invalid', error: privateAddress },
        { url: 'https://localhost/x', kind: 'invalid', error: privateAddress },
        { url: 'https://[::1]/x', kind: 'invalid', error: privateAddress },
        { url: 'https://10.0.0.8/x', kind: 'invalid', error: privateAddress },
        { url: 'http://example.com/x', kind: 'invalid', error: 'url must be a https URL' },
        { url: 'ftp://example.com/x', kind: 'invalid', error: 'url must be a https URL' },
        { url: 'https://no-such-host.invalid/x', kind: 'invalid', error: 'url host could not be resolved' },
      ]);
      expect(await h.db('endpoints').whereIn('api_key_id', keys)).toEqual([]);
    }));

  it('refuses credentials in the URL and names http(s) when http is allowed', () =>
    withDispatcher({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'false' }, async () => {
      await expect(set(nextKey++, 5, 'ftp://example.com/x')).rejects.toMatchObject({
        kind: 'invalid',
        body: { error: 'url must be an http(s) URL' },
      });
      await expect(set(nextKey++, 5, 'not a url')).rejects.toMatchObject({
        kind: 'invalid',
        body: { error: 'url must be an http(s) URL' },
      });
      await expect(set(nextKey++, 5, 'https://user:pw@example.com/x')).rejects.toMatchObject({
        kind: 'invalid',
        body: { error: 'url must not contain credentials' },
      });
      await expect(set(nextKey++, 5, 'http://127.0.0.1:8080/x')).rejects.toMatchObject({
        kind: 'invalid',
        body: { error: 'url must not point to a private, loopback, link-local or metadata address' },
      });
    }));
});
