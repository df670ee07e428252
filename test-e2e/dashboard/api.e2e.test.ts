import { say, startFakeLlm, type FakeLlm } from '../../services/editor-agent/test/support/fake-llm';
import { DASHBOARD_REPLIES } from '../../libs/contracts/src';
import { checkedDashboardRoutes, DashboardSession } from '../support/dashboard-session';
import { api, startFleet, type Fleet } from '../support/fleet';
import { until } from '../support/jobs';
import { LOOPBACK_DELIVERY, startReceiver, verifySignature } from '../support/webhook-receiver';

const PASSWORD = 'correct horse battery';
const SIGN_IN_REFUSED = { error: 'Invalid email or password' };
const SIGN_UP_REFUSED = { error: 'Could not create an account with these details' };
const CSRF_REFUSED = { error: 'CSRF token missing or invalid' };
const NOT_SIGNED_IN = { error: 'Not signed in' };

let counter = 0;
const newEmail = (tag: string) => `${tag}-${Date.now()}-${counter++}@example.test`;

/** The dashboard's JSON API on the real fleet, spoken to as the single-page app does (cookie + CSRF token). */
describe('dashboard API end to end', () => {
  let fleet: Fleet;
  let llm: FakeLlm;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** The main user of the walk-through, signed up in the first test. */
  let alice: DashboardSession;
  let aliceEmail: string;
  let aliceId: number;

  beforeAll(async () => {
    llm = await startFakeLlm(() => say('Hello! What shall we make?'));
    receiver = await startReceiver();
    fleet = await startFleet({
      RATE_LIMIT_PER_MINUTE: '100000',
      ...LOOPBACK_DELIVERY,
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake',
    });
  }, 240_000);

  afterAll(async () => {
    await fleet?.shutdown();
    await Promise.all([llm?.close(), receiver?.close()]);
  });

  const session = () => new DashboardSession(fleet.baseUrl);

  async function signedUp(tag: string): Promise<{ s: DashboardSession; email: string; id: number }> {
    const s = session();
    const email = newEmail(tag);
    const res = await s.signUp(email, PASSWORD);
    expect(res.status).toBe(201);
    return { s, email, id: res.body.user.id };
  }

  describe('accounts and sessions', () => {
    it('signs up with an httpOnly session cookie, then answers /me with the user and the CSRF token', async () => {
      alice = session();
      aliceEmail = newEmail('alice');
      const res = await alice.signUp(aliceEmail, PASSWORD);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        user: { id: expect.any(Number), email: aliceEmail, role: 'user' },
        csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      aliceId = res.body.user.id;
      const [cookie] = res.setCookies;
      expect(cookie).toMatchObject({ name: 'mf_session', value: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect(cookie.attributes).toMatchObject({
        httponly: true,
        samesite: 'Lax',
        path: '/',
        'max-age': String(14 * 24 * 3600),
      });
      // PUBLIC_BASE_URL is http here: no Secure flag, or the browser would never send it back.
      expect(cookie.attributes.secure).toBeUndefined();
      expect(res.headers.get('cache-control')).toBe('no-store');

      const me = await alice.get('/me');
      expect(me.status).toBe(200);
      expect(me.body).toEqual(res.body);
    });

    it('refuses a taken email, a short password and a malformed email with the same 400', async () => {
      const taken = await session().signUp(aliceEmail.toUpperCase(), 'another long password');
      const short = await session().signUp(newEmail('short'), '123456789');
      const malformed = await session().signUp('not-an-email', PASSWORD);
      for (const res of [taken, short, malformed]) {
        expect([res.status, res.body]).toEqual([400, SIGN_UP_REFUSED]);
        expect(res.setCookies).toEqual([]);
      }
    });

    it('answers a wrong password, an unknown email and a password-less account with the same 401', async () => {
      const cliOnly = newEmail('cli');
      await fleet.admin('user:create', '--email', cliOnly);
      const wrong = await session().signIn(aliceEmail, 'wrong password!!');
      const unknown = await session().signIn(newEmail('nobody'), PASSWORD);
      const noPassword = await session().signIn(cliOnly, PASSWORD);
      for (const res of [wrong, unknown, noPassword]) {
        expect([res.status, res.body]).toEqual([401, SIGN_IN_REFUSED]);
        expect(res.setCookies).toEqual([]);
      }
    });

    it('signs in with the right password (any case of the email) into a new session beside the old one', async () => {
      const other = session();
      const res = await other.signIn(aliceEmail.toUpperCase(), PASSWORD);
      expect(res.status).toBe(200);
      expect(res.body.user).toEqual({ id: aliceId, email: aliceEmail, role: 'user' });
      expect(res.body.csrf_token).not.toBe(alice.csrfToken);
      expect(other.cookies.get('mf_session')).not.toBe(alice.cookies.get('mf_session'));
      expect((await alice.get('/me')).status).toBe(200);
      expect((await other.get('/me')).status).toBe(200);
    });

    it('answers the 6th failed sign-in of an email with 429 and Retry-After, even with the right password', async () => {
      const { email } = await signedUp('throttled');
      for (let i = 0; i < 5; i++) expect((await session().signIn(email, `wrong ${i} password`)).status).toBe(401);
      const blocked = await session().signIn(email, PASSWORD);
      expect(blocked.status).toBe(429);
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(blocked.body).toEqual({
        error: `Too many sign-in attempts. Try again in ${retryAfter} s.`,
        retry_after: retryAfter,
      });
      expect(blocked.setCookies).toEqual([]);
      // Another email from the same address is not affected.
      expect((await session().signIn(aliceEmail, PASSWORD)).status).toBe(200);
    });

    it('clears the failure count on a successful sign-in', async () => {
      const { email } = await signedUp('reset');
      for (let i = 0; i < 4; i++) expect((await session().signIn(email, `wrong ${i} password`)).status).toBe(401);
      expect((await session().signIn(email, PASSWORD)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await session().signIn(email, `wrong again ${i}`)).status).toBe(401);
      expect((await session().signIn(email, PASSWORD)).status).toBe(429);
    });

    it('refuses a cross-origin sign-in or sign-up with 403, creating no session and no account', async () => {
      const evil = 'https://evil.example';
      const signIn = await session().post('/signin', { body: { email: aliceEmail, password: PASSWORD }, origin: evil });
      expect([signIn.status, signIn.body, signIn.setCookies]).toEqual([403, CSRF_REFUSED, []]);
      const email = newEmail('crossorigin');
      const signUp = await session().post('/signup', { body: { email, password: PASSWORD }, origin: evil });
      expect([signUp.status, signUp.body]).toEqual([403, CSRF_REFUSED]);
      // Had the account been made, signing it up again now would be refused.
      expect((await session().signUp(email, PASSWORD)).status).toBe(201);
    });

    it('answers 401 "Not signed in" without a session, and for a made-up cookie (clearing it)', async () => {
      expect(await session().get('/me')).toMatchObject({ status: 401, body: NOT_SIGNED_IN });
      const forged = session();
      forged.cookies.set('mf_session', 'A'.repeat(43));
      const res = await forged.get('/keys');
      expect([res.status, res.body]).toEqual([401, NOT_SIGNED_IN]);
      expect(res.setCookies).toEqual([
        expect.objectContaining({
          name: 'mf_session',
          value: '',
          attributes: expect.objectContaining({ 'max-age': '0' }),
        }),
      ]);
    });
  });

  describe('API keys', () => {
    let keyId: number;
    let secretKey: string;

    it('refuses a key creation without the CSRF token or with a wrong one, and creates nothing', async () => {
      const missing = await alice.post('/keys', { body: { name: 'sneaky', scopes: ['jobs:read'] }, csrf: false });
      expect([missing.status, missing.body]).toEqual([403, CSRF_REFUSED]);
      const wrong = await alice.post('/keys', {
        body: { name: 'sneaky', scopes: ['jobs:read'] },
        csrf: false,
        headers: { 'x-csrf-token': 'B'.repeat(43) },
      });
      expect([wrong.status, wrong.body]).toEqual([403, CSRF_REFUSED]);
      expect((await alice.get('/keys')).body).toEqual({ keys: [] });
    });

    it('creates a key, showing the full key once, and lists it without it', async () => {
      const res = await alice.post('/keys', {
        body: { name: 'ci', scopes: ['video:write', 'image:write', 'video-editor:write', 'video-editor:read'] },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        key: {
          id: expect.any(Number),
          name: 'ci',
          prefix: expect.stringMatching(/^mf_live_/),
          scopes: ['models:read', 'video:write', 'image:write', 'video-editor:write', 'video-editor:read'],
          created_at: expect.any(String),
          last_used_at: null,
          revoked_at: null,
          limits: { spend_limit: null, max_concurrent_jobs: null, spent_this_period: 0, active_jobs: 0 },
        },
        secret_key: expect.stringMatching(/^mf_live_[A-Za-z0-9]{40}$/),
      });
      keyId = res.body.key.id;
      secretKey = res.body.secret_key;
      expect(secretKey.startsWith(res.body.key.prefix)).toBe(true);
      const list = await alice.get('/keys');
      expect(list.body.keys).toEqual([res.body.key]);
      expect(JSON.stringify(list.body)).not.toContain(secretKey);
    });

    it('refuses an unknown scope with 400', async () => {
      const res = await alice.post('/keys', { body: { name: 'bad', scopes: ['root'] } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/unknown scope: root/);
    });

    it('lets the new key call /api/v1, and answers 401 for it at once after revoking', async () => {
      const account = await api(fleet, 'GET', '/api/v1/account', { key: secretKey });
      expect(account.status).toBe(200);
      expect(account.body.api_key.id).toBe(keyId);

      const second = await alice.post('/keys', { body: { name: 'to revoke', scopes: [] } });
      const revoked = await alice.delete(`/keys/${second.body.key.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ id: second.body.key.id, revoked_at: expect.any(String) });
      const after = await api(fleet, 'GET', '/api/v1/account', { key: second.body.secret_key });
      expect([after.status, after.body]).toEqual([401, { error: 'Invalid or revoked API key' }]);
      const list = await alice.get('/keys');
      expect(list.body.keys.map((k: { id: number }) => k.id)).toEqual([second.body.key.id, keyId]);
      expect(list.body.keys[0].revoked_at).toBe(revoked.body.revoked_at);
    });

    it('never accepts the session cookie on /api/v1', async () => {
      const res = await fetch(`${fleet.baseUrl}/api/v1/account`, {
        headers: { cookie: alice.cookieHeader, 'x-csrf-token': alice.csrfToken! },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'Missing Authorization header' });
    });

    describe('webhooks', () => {
      let firstSecret: string;

      it('saves a URL with a new secret shown once, keeps the secret when the URL changes, and shows the URL', async () => {
        const set = await alice.put(`/keys/${keyId}/webhook`, { body: { url: `${receiver.url}/old` } });
        expect(set.status).toBe(200);
        expect(set.body).toEqual({ url: `${receiver.url}/old`, secret: expect.stringMatching(/^whsec_/) });
        firstSecret = set.body.secret;
        const changed = await alice.put(`/keys/${keyId}/webhook`, { body: { url: receiver.url } });
        expect(changed.body).toEqual({ url: receiver.url });
        const view = await alice.get(`/keys/${keyId}/webhook`);
        expect(view.body).toEqual({
          url: receiver.url,
          created_at: expect.any(String),
          updated_at: expect.any(String),
          failing_since: null,
          disabled_at: null,
        });
        expect(JSON.stringify(view.body)).not.toContain(firstSecret);
      });

      it('sends a signed webhook.test event now and records its attempt in the deliveries', async () => {
        const before = receiver.received.length;
        const res = await alice.post(`/keys/${keyId}/webhook/test`);
        expect(res.status).toBe(200);
        expect(res.body.delivery).toEqual({
          id: expect.any(Number),
          event_id: expect.any(String),
          event: 'webhook.test',
          job_id: '',
          attempt: 1,
          url: receiver.url,
          status_code: 200,
          error: null,
          duration_ms: expect.any(Number),
          created_at: expect.any(String),
          succeeded: true,
          test: true,
        });
        expect(receiver.received.length).toBe(before + 1);
        const hook = receiver.received[before];
        expect(hook.headers['x-service-event']).toBe('webhook.test');
        expect(verifySignature(firstSecret, String(hook.headers['x-service-signature']), hook.rawBody)).toBe(true);
        expect(JSON.parse(hook.rawBody)).toEqual({
          event: 'webhook.test',
          api_key_id: keyId,
          sent_at: expect.any(String),
        });

        const deliveries = await alice.get(`/keys/${keyId}/webhook/deliveries`);
        expect(deliveries.body.deliveries[0]).toEqual(res.body.delivery);
      });

      it('shows an attempt in detail, resends it, recovers, and filters the log by outcome', async () => {
        const [first] = (await alice.get(`/keys/${keyId}/webhook/deliveries`)).body.deliveries;
        const detail = await alice.get(`/keys/${keyId}/webhook/deliveries/${first.id}`);
        expect(detail.status).toBe(200);
        expect(detail.body).toMatchObject({ ...first, response_body: 'ok' });
        expect(detail.body.request_headers).toMatchObject({ 'X-Service-Event-Id': first.event_id });

        const before = receiver.received.length;
        const resend = await alice.post(`/keys/${keyId}/webhook/deliveries/${first.id}/resend`);
        expect(resend.status).toBe(202);
        expect(resend.body.delivery).toMatchObject({ event_id: first.event_id, attempt: 2, succeeded: true });
        expect(receiver.received.length).toBe(before + 1);
        expect(receiver.received[before].rawBody).toBe(detail.body.request_body);

        const since = new Date(Date.now() - 3600_000).toISOString();
        expect(await alice.post(`/keys/${keyId}/webhook/recover`, { body: { since } })).toMatchObject({
          status: 202,
          body: { queued: 0 },
        });
        expect((await alice.post(`/keys/${keyId}/webhook/recover`, { body: { since: 'soon' } })).body).toEqual({
          error: 'since must be an ISO 8601 timestamp',
        });
        expect((await alice.get(`/keys/${keyId}/webhook/deliveries?status=failed`)).body).toEqual({ deliveries: [] });
        expect((await alice.get(`/keys/${keyId}/webhook/deliveries?status=lost`)).body).toEqual({
          error: 'status must be one of failed, succeeded',
        });
        expect((await alice.get(`/keys/${keyId}/webhook/deliveries/999999999`)).status).toBe(404);
      });

      it('rolls the secret with an overlap: a new secret shown once and when the old one stops', async () => {
        const rolled = await alice.post(`/keys/${keyId}/webhook/secret/rotate`, { body: { overlap_hours: 1 } });
        expect(rolled.status).toBe(200);
        expect(rolled.body).toEqual({
          secret: expect.stringMatching(/^whsec_/),
          previous_secret_expires_at: expect.any(String),
        });
        expect(rolled.body.secret).not.toBe(firstSecret);
        const stops = Date.parse(rolled.body.previous_secret_expires_at) - Date.now();
        expect(stops).toBeGreaterThan(55 * 60_000);
        expect(stops).toBeLessThanOrEqual(60 * 60_000);
        firstSecret = rolled.body.secret;
        expect((await alice.post(`/keys/${keyId}/webhook/secret/rotate`, { body: { overlap_hours: 73 } })).status).toBe(
          400,
        );
      });

      it('clears the webhook (a test then finds none), and a new save generates a new secret', async () => {
        expect((await alice.delete(`/keys/${keyId}/webhook`)).body).toEqual({ cleared: true });
        expect((await alice.get(`/keys/${keyId}/webhook`)).body).toEqual({
          url: null,
          created_at: null,
          updated_at: null,
          failing_since: null,
          disabled_at: null,
        });
        expect((await alice.post(`/keys/${keyId}/webhook/test`)).status).toBe(404);
        const again = await alice.put(`/keys/${keyId}/webhook`, { body: { url: receiver.url } });
        expect(again.body.secret).toMatch(/^whsec_/);
        expect(again.body.secret).not.toBe(firstSecret);
      });
    });

    describe('credits, jobs and projects', () => {
      it('shows the balance and the ledger after an admin grant', async () => {
        await fleet.admin('credits:grant', '--email', aliceEmail, '--amount', '5000');
        const balance = await alice.get('/balance');
        expect(balance.body).toEqual({
          credits_remaining: 5000,
          credits_used_this_period: 0,
          credits_total_this_period: expect.any(Number),
          period_start: expect.any(String),
          period_end: expect.any(String),
        });
        const ledger = await alice.get('/ledger');
        expect(ledger.body.entries).toEqual([
          {
            id: expect.any(Number),
            kind: 'grant',
            reference: expect.stringMatching(/^grant:/),
            amount: 5000,
            delta: 5000,
            balance_after: 5000,
            description: 'admin grant',
            model: null,
            api_key_id: null,
            created_at: expect.any(String),
          },
        ]);
      });

      it('lists submitted jobs newest first with their key, pages them, and cancels one with a refund', async () => {
        const image = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
          key: secretKey,
          body: { prompt: 'a lighthouse' },
        });
        const video = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
          key: secretKey,
          body: { prompt: 'to be cancelled', duration_seconds: 15 },
        });
        expect([image.status, video.status]).toEqual([202, 202]);

        const list = await alice.get('/jobs');
        expect(list.status).toBe(200);
        expect(list.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([video.body.job_id, image.body.job_id]);
        expect(list.body.jobs[0]).toMatchObject({
          job_id: video.body.job_id,
          type: 'video',
          status: 'processing',
          api_key_id: keyId,
          credits_consumed: 15 * 227,
        });

        const page1 = await alice.get('/jobs?limit=1');
        const page2 = await alice.get(`/jobs?limit=1&before=${page1.body.jobs[0].job_id}`);
        const page3 = await alice.get(`/jobs?limit=1&before=${page2.body.jobs[0].job_id}`);
        expect([...page1.body.jobs, ...page2.body.jobs].map((j: { job_id: string }) => j.job_id)).toEqual([
          video.body.job_id,
          image.body.job_id,
        ]);
        expect(page3.body.jobs).toEqual([]);

        const one = await alice.get(`/jobs/${video.body.job_id}`);
        expect(one.body).toMatchObject({ job_id: video.body.job_id, model: expect.any(String), type: 'video' });

        const cancel = await alice.delete(`/jobs/${video.body.job_id}`);
        expect(cancel.body).toEqual({ job_id: video.body.job_id, status: 'cancelled', refunded_credits: 15 * 227 });
        expect((await alice.delete(`/jobs/${video.body.job_id}`)).status).toBe(409);
        expect((await alice.get(`/jobs/${video.body.job_id}`)).body.status).toBe('cancelled');
        expect((await alice.get('/balance')).body.credits_remaining).toBe(5000 - 50);
        // The ledger signs each movement: the charges take credits away, the owner's cancel gives them back.
        const entries = (await alice.get('/ledger?limit=3')).body.entries.map(
          (e: { kind: string; amount: number; delta: number; description: string }) => [
            e.kind,
            e.amount,
            e.delta,
            e.description,
          ],
        );
        expect(entries).toEqual([
          ['refund', 15 * 227, 15 * 227, 'cancelled by you'],
          ['charge', 15 * 227, -15 * 227, 'vidgen-2.0 job'],
          ['charge', 50, -50, 'imagegen-2 job'],
        ]);
      });

      it('lists projects and shows a project with its videos and chat threads', async () => {
        const created = await api(fleet, 'POST', '/api/v1/media-studio/projects', {
          key: secretKey,
          body: { name: 'Kites' },
        });
        expect(created.status).toBe(200);
        const projectId = created.body.project.id;
        const turn = await api(fleet, 'POST', `/api/v1/media-studio/projects/${projectId}/instruct`, {
          key: secretKey,
          body: { instruction: 'Say hello' },
        });
        expect(turn.status).toBe(200);

        const list = await alice.get('/projects');
        expect(list.body.projects).toEqual([expect.objectContaining({ id: projectId, name: 'Kites' })]);
        const state = await alice.get(`/projects/${projectId}`);
        expect(state.status).toBe(200);
        const [video] = state.body.videos;
        expect(state.body).toMatchObject({ project: { id: projectId, name: 'Kites' }, assets: [], clips: [] });
        expect(state.body.threads).toEqual({
          [video.id]: [
            {
              id: expect.any(String),
              instruction: 'Say hello',
              assistant_text: 'Hello! What shall we make?',
              status: 'done',
              created_at: expect.any(String),
            },
          ],
        });
        expect((await alice.get('/projects/prj_doesnotexist')).status).toBe(404);
      });

      it('works in a project with the session as the studio does: import, clips, a turn under no key, an export', async () => {
        expect((await alice.get('/session')).body.session).toMatchObject({ user: { id: aliceId } });
        expect(await session().get('/session')).toMatchObject({ status: 200, body: { session: null } });

        const created = await alice.post('/projects', { body: { name: 'Studio' } });
        expect(created.status).toBe(200);
        const base = `/projects/${created.body.project.id}`;
        const image = (await alice.get('/jobs')).body.jobs.find((j: { type: string }) => j.type === 'image');
        await until(
          'the image job to complete',
          async () => (await alice.get(`/jobs/${image.job_id}`)).body.status === 'completed',
        );
        const asset = await alice.post(`${base}/assets`, { body: { job_id: image.job_id } });
        expect(asset.body.asset).toMatchObject({ kind: 'image', metadata: { job_id: image.job_id } });
        const add = (n: number) =>
          alice.post(`${base}/clips`, { body: { track: 'video', asset_id: asset.body.asset.id, duration_sec: n } });
        const [first, second] = [(await add(1)).body.clip, (await add(2)).body.clip];
        const moved = await alice.call('PATCH', `${base}/clips/${second.id}`, { body: { idx: 0 } });
        expect(moved.body.clip).toMatchObject({ id: second.id, idx: 0 });
        expect((await alice.delete(`${base}/clips/${first.id}`)).body).toEqual({ removed: true });

        const turn = await alice.post(`${base}/instruct`, { body: { instruction: 'Say hello' } });
        expect(turn.body.assistant_text).toBe('Hello! What shall we make?');
        const [charge] = (await alice.get('/ledger?limit=1')).body.entries;
        expect(charge).toMatchObject({ kind: 'charge', model: 'editor-turn', api_key_id: null });

        const started = await alice.post(`${base}/export`, { body: {} });
        expect(started).toMatchObject({ status: 202, body: { status: 'rendering', progress: 0 } });
        const exportPath = `${base}/exports/${started.body.export_id}`;
        await until(
          'the export to complete',
          async () => (await alice.get(exportPath)).body.status !== 'rendering',
          60_000,
        );
        expect((await alice.get(exportPath)).body).toMatchObject({ status: 'completed', progress: 100 });
        expect((await alice.get(`${base}/exports`)).body.exports).toEqual([
          expect.objectContaining({ export_id: started.body.export_id }),
        ]);
      });
    });

    describe("another user's view", () => {
      it("sees none of the first user's keys, jobs, projects, webhooks or ledger", async () => {
        const { s: bob } = await signedUp('bob');
        expect((await bob.get('/keys')).body).toEqual({ keys: [] });
        expect((await bob.get('/jobs')).body).toEqual({ jobs: [], has_more: false });
        expect((await bob.get('/projects')).body).toEqual({ projects: [] });
        expect((await bob.get('/ledger')).body).toEqual({ entries: [], has_more: false });
        expect((await bob.get('/balance')).body.credits_remaining).toBe(0);

        const aliceJobs = (await alice.get('/jobs')).body.jobs;
        const aliceProject = (await alice.get('/projects')).body.projects[0].id;
        const attempts = [
          await bob.get(`/keys/${keyId}/webhook`),
          await bob.put(`/keys/${keyId}/webhook`, { body: { url: receiver.url } }),
          await bob.delete(`/keys/${keyId}/webhook`),
          await bob.get(`/keys/${keyId}/webhook/deliveries`),
          await bob.post(`/keys/${keyId}/webhook/test`),
          await bob.get(`/keys/${keyId}/webhook/deliveries/1`),
          await bob.post(`/keys/${keyId}/webhook/deliveries/1/resend`),
          await bob.post(`/keys/${keyId}/webhook/recover`, { body: { since: new Date(0).toISOString() } }),
          await bob.delete(`/keys/${keyId}`),
          await bob.get(`/jobs/${aliceJobs[0].job_id}`),
          await bob.delete(`/jobs/${aliceJobs[0].job_id}`),
          await bob.get(`/projects/${aliceProject}`),
        ];
        expect(attempts.map((r) => r.status)).toEqual(Array(attempts.length).fill(404));
        // Nothing of Alice's changed.
        expect((await api(fleet, 'GET', '/api/v1/account', { key: secretKey })).status).toBe(200);
        expect((await alice.get(`/keys/${keyId}/webhook`)).body.url).toBe(receiver.url);
      });
    });
  });

  describe('admin', () => {
    it('answers 403 to a non-admin, and works once the admin CLI makes the user an admin', async () => {
      const { s: carol, email: carolEmail, id: carolId } = await signedUp('carol');
      expect(await carol.get('/admin/users')).toMatchObject({ status: 403, body: { error: 'Admins only' } });
      expect((await carol.post(`/admin/users/${aliceId}/credits`, { body: { amount: 1 } })).status).toBe(403);

      const promoted = await fleet.admin('user:role', '--email', carolEmail, '--role', 'admin');
      expect(promoted).toEqual({ user_id: carolId, email: carolEmail, role: 'admin' });
      // The role counts from the next request: no new sign-in needed.
      expect((await carol.get('/me')).body.user.role).toBe('admin');
      const users = await carol.get(`/admin/users?email=${encodeURIComponent(aliceEmail.toUpperCase())}`);
      expect(users.body).toEqual({
        users: [{ id: aliceId, email: aliceEmail, role: 'user', created_at: expect.any(String) }],
      });

      const before = (await alice.get('/balance')).body.credits_remaining;
      const grant = await carol.post(`/admin/users/${aliceId}/credits`, { body: { amount: 250 } });
      expect(grant.body).toEqual({ credits_remaining: before + 250 });
      expect((await alice.get('/ledger')).body.entries[0]).toMatchObject({
        kind: 'grant',
        amount: 250,
        balance_after: before + 250,
      });
      expect((await carol.post(`/admin/users/${aliceId}/credits`, { body: { amount: 0 } })).status).toBe(400);
      expect((await carol.post('/admin/users/999999999/credits', { body: { amount: 5 } })).status).toBe(404);

      // The operator's usage report (docs/usage.md): alice's charges under her email, at CREDIT_VALUE_USD.
      const report = await carol.get('/admin/usage-report?by=user');
      expect(report.status).toBe(200);
      expect(report.body).toMatchObject({ by: 'user', credit_value: 0.01 });
      expect(report.body.rows).toContainEqual(expect.objectContaining({ user_id: aliceId, email: aliceEmail }));
      expect(await carol.get('/admin/usage-report?by=key')).toMatchObject({
        status: 400,
        body: { error: 'by must be one of user, model, provider' },
      });

      await fleet.admin('user:role', '--email', carolEmail, '--role', 'user');
      expect((await carol.get('/admin/users')).status).toBe(403);
      expect((await carol.get('/admin/usage-report')).status).toBe(403);
    });
  });

  describe('answers and their contracts', () => {
    it('answers the playground, key limit and attempt routes in their contract shapes', async () => {
      const installation = await alice.get('/installation');
      expect(installation.body.scopes).toContainEqual(expect.objectContaining({ name: 'models:read', always: true }));
      expect((await alice.get('/models')).body.models.length).toBeGreaterThan(0);
      const input = { model: 'imagegen-2', prompt: 'a kite' };
      expect((await alice.post('/estimate', { body: { api_key_id: null, input } })).body).toMatchObject({
        model: 'imagegen-2',
        affordable: true,
      });
      const run = await alice.post('/generate/image', { body: { api_key_id: null, input: { prompt: 'a kite' } } });
      expect(run.status).toBe(202);
      const attempts = await alice.get(`/jobs/${run.body.job_id}/attempts`);
      expect(attempts.body.job_id).toBe(run.body.job_id);
      // The usage page's figures: the user's own usage, as GET /api/v1/usage answers it.
      const usage = await alice.get('/usage?group_by=model');
      expect(usage.body).toMatchObject({ group_by: ['model'], totals: { jobs: expect.any(Number) } });
      expect(usage.body.rows).toContainEqual(expect.objectContaining({ model: 'imagegen-2' }));
      expect((await alice.get('/usage?group_by=week')).status).toBe(400);
      const key = await alice.post('/keys', { body: { name: 'limited', scopes: ['video:write'] } });
      const limits = await alice.put(`/keys/${key.body.key.id}/limits`, {
        body: { spend_limit: 1000, max_concurrent_jobs: 2 },
      });
      expect(limits.body).toMatchObject({ spend_limit: 1000, max_concurrent_jobs: 2 });
    });

    // Every call above went through DashboardSession, which checks each success answer against
    // DASHBOARD_REPLIES: this says none of the contract's routes went unchecked.
    it('has checked an answer of every route the dashboard reply contracts name', () => {
      expect([...checkedDashboardRoutes].sort()).toEqual(Object.keys(DASHBOARD_REPLIES).sort());
    });
  });

  describe('signing out', () => {
    it('ends the session: the cookie is cleared and the old cookie no longer signs in', async () => {
      const oldCookie = alice.cookieHeader;
      const withoutCsrf = await alice.post('/signout', { csrf: false });
      expect(withoutCsrf.status).toBe(403);
      const out = await alice.post('/signout');
      expect(out.status).toBe(204);
      expect(out.setCookies).toEqual([
        expect.objectContaining({
          name: 'mf_session',
          value: '',
          attributes: expect.objectContaining({ 'max-age': '0' }),
        }),
      ]);
      expect(await alice.get('/me')).toMatchObject({ status: 401, body: NOT_SIGNED_IN });
      const replay = await fetch(`${fleet.baseUrl}/dashboard/api/me`, { headers: { cookie: oldCookie } });
      expect(replay.status).toBe(401);
    });
  });
});
