import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import Stripe from 'stripe';
import { REPO_ROOT } from '@mf/fleet';
import { launchBrowser, newWatchedContext, type WatchedContext } from '../support/browser';
import { api } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { startReferenceServer } from '../support/reference-server';
import { startReceiver, verifySignature } from '../support/webhook-receiver';

// Page functions run in the browser, but this file compiles without the DOM library: they reach
// the page through these minimal shapes (the casts vanish in the compiled function).
interface PageWindow {
  document: { documentElement: { scrollWidth: number } };
  loadedOnce?: boolean;
  navigator: { clipboard: { readText: () => Promise<string> } };
  fetch: typeof fetch;
}
interface MediaElement {
  readyState: number;
  duration: number;
  error: { code: number } | null;
  addEventListener: (type: string, listener: () => void, options?: { once: boolean }) => void;
}
const isFocused = (el: { matches: (selector: string) => boolean }) => el.matches(':focus');

const SHOTS = path.join(REPO_ROOT, 'test-artifacts', 'dashboard');
const PASSWORD = 'correct horse battery';
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
const run = promisify(execFile);
const stripe = new Stripe('sk_test_unused');
/** Whether Stripe's own library accepts a delivery under `secret`. */
function stripeAccepts(hook: { rawBody: string; headers: Record<string, unknown> }, secret: string): boolean {
  try {
    stripe.webhooks.constructEvent(hook.rawBody, String(hook.headers['x-service-signature']), secret);
    return true;
  } catch {
    return false;
  }
}

/**
 * The dashboard driven in a real browser (Debian's Chromium) against the whole fleet: the issue's
 * flow from sign-up to a revoked key, then the editor project page and a phone-sized screen.
 * The steps share one user and run in order.
 */
describe('dashboard in the browser', () => {
  let fleet: PooledFleet;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let ref: Awaited<ReturnType<typeof startReferenceServer>>;
  let customer: WatchedContext;
  let page: Page;
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-dashboard-e2e-'));
  const email = `ui${Date.now()}@example.test`;
  // Shared by the steps below.
  let apiKey = '';
  let keyId = '';
  let webhookSecret = '';
  let videoJobId = '';
  let cancelJobId = '';
  let release: () => void = () => undefined;
  const releaseHeld = new Promise<void>((r) => (release = r));
  let projectId = '';
  // Every state-changing call the pages make to the dashboard API, with its CSRF header.
  const writes: { path: string; csrf: string | undefined }[] = [];

  const base = () => `${fleet.baseUrl}/dashboard/`;
  const shot = (p: Page, name: string) => p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  /** Opens a route and waits until its page is the one on screen. */
  const go = async (p: Page, hash: string) => {
    await p.goto(`${base()}${hash}`);
    await p.locator(`main > .page[data-path="${hash.slice(1)}"] h1`).waitFor();
  };
  /**
   * The polite live region said this at some point (status messages are what screen readers hear).
   * Every message is recorded, because a later one (a job completing) may replace it before we look.
   */
  const waitForStatus = (p: Page, text: string | RegExp) =>
    p.waitForFunction(
      ([source, flags]) => {
        const log = (globalThis as unknown as { __statusLog?: string[] }).__statusLog ?? [];
        return flags === null
          ? log.some((m) => m.includes(source))
          : log.some((m) => new RegExp(source, flags).test(m));
      },
      typeof text === 'string' ? ([text, null] as const) : ([text.source, text.flags] as const),
      { timeout: 30_000 },
    );
  /** Records every text the status region shows, from the first moment of every document. */
  const STATUS_LOG = `(() => {
    const log = [];
    globalThis.__statusLog = log;
    new MutationObserver(() => {
      const text = document.getElementById('status')?.textContent;
      if (text && log[log.length - 1] !== text) log.push(text);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  })();`;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const media = (name: string) => path.join(mediaDir, name);
    ffmpeg(
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=640x360:rate=24',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440',
      '-t',
      '2',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-shortest',
      media('clip.mp4'),
    );
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=220', '-t', '3', '-c:a', 'aac', media('music.m4a'));
    ffmpeg('-f', 'lavfi', '-i', 'color=c=orange:s=320x240', '-frames:v', '1', media('held.png'));
    ref = await startReferenceServer({
      // The long job's reference image: answered only when the job-list test is done with it, so
      // the job is still processing when it is cancelled, however fast the machine renders.
      '/held.png': { file: media('held.png'), contentType: 'image/png', held: releaseHeld },
      '/clip.mp4': { file: media('clip.mp4'), contentType: 'video/mp4' },
      '/music.m4a': { file: media('music.m4a'), contentType: 'audio/mp4' },
    });
    receiver = await startReceiver();
    fleet = await pooledFleet();
    browser = await launchBrowser();
    customer = await newWatchedContext(browser);
    await customer.context.addInitScript(STATUS_LOG);
    page = customer.page;
    await customer.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: fleet.baseUrl });
    customer.context.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname.startsWith('/dashboard/api/') && req.method() !== 'GET')
        writes.push({ path: `${req.method()} ${url.pathname}`, csrf: req.headers()['x-csrf-token'] });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    release();
    await ref?.close();
    fs.rmSync(mediaDir, { recursive: true, force: true });
  });

  it('sends a signed-out visitor to sign in, and signs a new user up', async () => {
    await page.goto(base());
    await page.waitForURL(/#\/signin$/);
    // The API reference is linked before anyone signs in.
    expect(
      await page
        .locator('.site-footer')
        .getByRole('link', { name: /API reference/ })
        .getAttribute('href'),
    ).toBe('/api/v1/reference');
    await shot(page, 'signin');
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await shot(page, 'signup');
    await page.getByRole('button', { name: 'Sign up' }).click();

    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await waitForStatus(page, 'Your account is ready');
    expect(await page.locator('#account-email').textContent()).toBe(email);
    // A new account has nothing yet, and is told how credits come on this installation.
    expect(await page.locator('.stat-main dd').textContent()).toBe('0');
    const start = page.getByRole('region', { name: 'Getting started' });
    expect(await start.textContent()).toContain(
      'You have no credits yet. New accounts on this installation start with 0 credits: an administrator grants them. Ask one',
    );
    expect(await start.getByRole('link', { name: 'playground' }).getAttribute('href')).toBe('#/playground');
    // The API reference is one click away, on every page.
    expect(
      await page
        .getByRole('link', { name: /API reference/ })
        .first()
        .getAttribute('href'),
    ).toBe('/api/v1/reference');
    await shot(page, 'overview-new');
    // Not an admin: no admin link, and the admin page says so.
    expect(await page.locator('#nav-admin').isHidden()).toBe(true);
    await go(page, '#/admin');
    expect(await page.locator('h1').textContent()).toBe('Admins only');
  });

  it('lets an admin find the user by email and grant credits, which the user sees as balance, chart and ledger', async () => {
    const adminEmail = `admin${Date.now()}@example.test`;
    await fleet.admin('user:create', '--email', adminEmail, '--password', PASSWORD);
    await fleet.admin('user:role', '--email', adminEmail, '--role', 'admin');
    const admin = await newWatchedContext(browser);
    try {
      await admin.page.goto(`${base()}#/admin`);
      await admin.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await admin.page.getByLabel('Email').fill(adminEmail);
      await admin.page.getByLabel('Password').fill(PASSWORD);
      await admin.page.getByRole('button', { name: 'Sign in' }).click();
      // Back to the page asked for before signing in.
      await admin.page.getByRole('heading', { name: 'Admin' }).waitFor();
      expect(await admin.page.locator('#nav-admin').isVisible()).toBe(true);
      await admin.page.getByRole('searchbox', { name: 'Email' }).fill(email);
      await admin.page.getByRole('button', { name: 'Find user' }).click();
      const amount = admin.page.getByLabel(`Credits to grant to ${email}`);
      await amount.fill('5000');
      await admin.page.getByRole('button', { name: 'Grant' }).click();
      await admin.page.locator('.grant-result', { hasText: /Balance now 5,?000/ }).waitFor();
      await shot(admin.page, 'admin');
    } finally {
      await admin.context.close();
    }

    await go(page, '#/');
    await page.locator('.stat-main dd', { hasText: /^5,?000$/ }).waitFor();
    const chart = page.getByRole('img', { name: /Credits over time/ });
    expect(await chart.count()).toBe(1);
    // The chart's text alternative states the figures.
    expect(await chart.locator('desc').textContent()).toMatch(/5,?000 credits/);
    const rows = page.locator('table.data tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('td').nth(1).textContent()).toBe('Grant');
    expect(await rows.first().locator('td').nth(4).textContent()).toMatch(/^\+5,?000$/);
    await shot(page, 'overview');
  });

  it('creates a key with video:write whose full value is shown once, and which works against the public API', async () => {
    await go(page, '#/keys');
    const modelsRead = page.getByRole('checkbox', { name: /models:read/ });
    expect(await modelsRead.isChecked()).toBe(true);
    expect(await modelsRead.isDisabled()).toBe(true);
    // Ticked by default: what a typical user needs; the editor scopes are left to choose. Each says what it allows.
    const ticked = async (scope: string) => page.getByRole('checkbox', { name: scope, exact: true }).isChecked();
    expect([
      await ticked('video:write'),
      await ticked('image:write'),
      await ticked('jobs:read'),
      await ticked('video-editor:write'),
      await ticked('video-editor:read'),
    ]).toEqual([true, true, true, false, false]);
    expect(
      await page.getByRole('checkbox', { name: 'jobs:read', exact: true }).getAttribute('aria-describedby'),
    ).toBeTruthy();
    expect(await page.locator('.scope-hint').allTextContents()).toHaveLength(6);
    await page.getByRole('checkbox', { name: 'image:write', exact: true }).uncheck();
    await page.getByRole('checkbox', { name: 'jobs:read', exact: true }).uncheck();
    await page.getByLabel('Name', { exact: true }).fill('render server');
    await page.getByRole('checkbox', { name: /video:write/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();

    const secret = page.getByTestId('new-key');
    await secret.waitFor();
    apiKey = await secret.inputValue();
    expect(apiKey).toMatch(/^mf_live_/);
    // The secret field has focus, ready to copy; the copy button is a real button.
    expect(await secret.evaluate(isFocused)).toBe(true);
    await page.getByRole('button', { name: 'Copy' }).click();
    await waitForStatus(page, 'Copied to the clipboard.');
    expect(await page.evaluate(() => (globalThis as unknown as PageWindow).navigator.clipboard.readText())).toBe(
      apiKey,
    );
    const row = page.locator('tbody tr', { hasText: 'render server' });
    const prefix = (await row.locator('td').nth(1).textContent()) ?? '';
    expect(apiKey.startsWith(prefix)).toBe(true);
    expect(await row.locator('td').nth(2).textContent()).toContain('video:write');
    expect(await row.locator('td').nth(4).textContent()).toBe('never');
    keyId = (await row.getAttribute('data-key-id')) ?? '';
    await shot(page, 'keys');

    // Shown once: after a reload the page holds no trace of it.
    await page.reload();
    await page.locator('tbody tr', { hasText: 'render server' }).waitFor();
    expect(await page.content()).not.toContain(apiKey);

    const account = await api(fleet, 'GET', '/api/v1/account', { key: apiKey });
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ credits_remaining: 5000, api_key: { id: Number(keyId) } });
    expect(account.body.api_key.scopes).toEqual(expect.arrayContaining(['models:read', 'video:write']));
  });

  it("sets the key's webhook URL and shows the signing secret once", async () => {
    await go(page, '#/keys');
    await page.getByRole('link', { name: 'render server' }).click();
    await page.getByRole('heading', { name: 'API key “render server”' }).waitFor();
    await page.locator('.webhook-current', { hasText: 'No webhook set' }).waitFor();
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Save webhook URL' }).click();
    const secret = page.getByTestId('webhook-secret');
    await secret.waitFor();
    webhookSecret = await secret.inputValue();
    expect(webhookSecret).toMatch(/^whsec_/);
    expect(await page.locator('.webhook-current').textContent()).toContain(receiver.url);

    await page.reload();
    await page.locator('.webhook-current', { hasText: receiver.url }).waitFor();
    expect(await page.content()).not.toContain(webhookSecret);
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
  });

  it('shows jobs live: a job submitted meanwhile appears and completes with a playable video, another is cancelled from the list', async () => {
    const submit = (body: object) => api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', { key: apiKey, body });
    // A long render keeps the list polling while the page is open.
    const long = await submit({
      prompt: 'a long sunset to be cancelled',
      duration_seconds: 15,
      image_url: `${ref.url}/held.png`,
    });
    expect(long.status).toBe(202);
    cancelJobId = long.body.job_id;

    await go(page, '#/jobs');
    // Gone if the page reloads: what follows must arrive through the poll alone.
    await page.evaluate(() => ((globalThis as unknown as PageWindow).loadedOnce = true));
    const longCard = page.locator(`li[data-job-id="${cancelJobId}"]`);
    await longCard.waitFor();
    expect(await longCard.getAttribute('data-status')).toBe('processing');
    expect(await longCard.textContent()).toContain('3,405 credits');
    // The prompt tells jobs apart.
    expect(await longCard.locator('.job-prompt').textContent()).toBe('a long sunset to be cancelled');
    expect(await page.locator('.live-note').textContent()).toContain('updating every 2 seconds');

    // Submitted while the page is open: it appears by itself.
    const video = await submit({ prompt: 'a paper boat on a pond', duration_seconds: 4, resolution: '480p' });
    expect(video.status).toBe(202);
    videoJobId = video.body.job_id;
    await page.locator(`li[data-job-id="${videoJobId}"]`).waitFor({ timeout: 10_000 });
    expect(await page.locator('li.job-card').first().getAttribute('data-job-id')).toBe(videoJobId);

    // Cancel from the list, confirming in the dialog.
    await longCard.getByRole('button', { name: `Cancel job ${cancelJobId}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel job' }).click();
    await page.locator(`li[data-job-id="${cancelJobId}"][data-status="cancelled"]`).waitFor();
    await waitForStatus(page, `Job ${cancelJobId} cancelled: 3,405 credits refunded.`);
    release(); // the cancelled job no longer waits for its reference
    expect(await longCard.textContent()).toContain('3,405 credits, refunded');

    // The video job turns completed without a reload (the 2 s poll), with a video that plays.
    const card = page.locator(`li[data-job-id="${videoJobId}"][data-status="completed"]`);
    await card.waitFor({ timeout: 90_000 });
    expect(await page.evaluate(() => (globalThis as unknown as PageWindow).loadedOnce)).toBe(true);
    const media = await card.locator('video').evaluate(
      (v: MediaElement) =>
        new Promise<{ readyState: number; duration: number; error: number | null }>((resolve) => {
          const done = () =>
            resolve({ readyState: v.readyState, duration: v.duration, error: v.error ? v.error.code : null });
          if (v.readyState >= 1) done();
          else {
            v.addEventListener('loadedmetadata', done, { once: true });
            v.addEventListener('error', done, { once: true });
          }
        }),
    );
    expect(media.error).toBeNull();
    expect(media.readyState).toBeGreaterThanOrEqual(1);
    expect(Math.abs(media.duration - 4)).toBeLessThan(0.2);
    expect(await card.locator('.badge').textContent()).toBe('completed');
    expect(await card.getByRole('button', { name: /Cancel job/ }).isVisible()).toBe(false);
    await shot(page, 'jobs');

    await card.getByRole('link', { name: videoJobId }).click();
    await page.getByRole('heading', { name: `Job ${videoJobId}` }).waitFor();
    await page.locator('.preview-large video').waitFor();
    const download = page.getByRole('link', { name: 'Download' });
    // Same-origin (relative) media, saved under the prompt and the job id rather than "video.mp4".
    expect(await download.getAttribute('href')).toBe(`/media/jobs/${videoJobId}/video.mp4`);
    expect(await download.getAttribute('download')).toBe(`a paper boat on a pond ${videoJobId}.mp4`);

    // The job's input as it ran, and the request that makes it again.
    const job = (await api(fleet, 'GET', `/api/v1/jobs/${videoJobId}`, { key: apiKey })).body;
    const input = page.getByRole('region', { name: 'Input' });
    expect(await input.locator('dd[data-field="prompt"]').textContent()).toBe('a paper boat on a pond');
    expect(await input.locator('dd[data-field="seed"]').textContent()).toBe(String(job.input.seed));
    expect(await input.locator('dd[data-field="resolution"]').textContent()).toBe('480p');
    await input.getByRole('button', { name: 'Copy as curl' }).click();
    await waitForStatus(page, 'Copied to the clipboard.');
    const curl = await page.evaluate(() => (globalThis as unknown as PageWindow).navigator.clipboard.readText());
    expect(curl).toBe(await input.locator('pre.curl').textContent());
    await shot(page, 'job');

    // Balance: 5000, less the video (4 s x 101), the cancelled job refunded.
    const account = await api(fleet, 'GET', '/api/v1/account', { key: apiKey });
    expect(account.body.credits_remaining).toBe(5000 - 404);

    // The copied command runs as it is, in a shell, and makes the same request: the same input, the same seed.
    const { stdout } = await run('bash', ['-c', `${curl} -s`], {
      env: { PATH: process.env.PATH, MEDIAFORGE_API_KEY: apiKey },
    });
    const again = JSON.parse(stdout);
    expect(again).toMatchObject({ status: 'processing', credits_consumed: 404 });
    expect((await api(fleet, 'GET', `/api/v1/jobs/${again.job_id}`, { key: apiKey })).body.input).toEqual(job.input);
    expect((await api(fleet, 'DELETE', `/api/v1/jobs/${again.job_id}`, { key: apiKey })).status).toBe(200);
  });

  it('shows charges as negative and refunds and grants as positive in the ledger, with a falling balance after each charge', async () => {
    await go(page, '#/');
    const rows = page.locator('table.data tbody tr');
    await rows.nth(5).waitFor();
    const ledger = await rows.evaluateAll((trs) =>
      trs.map((tr) => {
        const cells = (tr as unknown as { cells: ArrayLike<{ textContent: string; className: string }> }).cells;
        return [
          cells[1].textContent,
          cells[2].textContent,
          cells[4].textContent,
          cells[4].className.includes('negative')
            ? 'negative'
            : cells[4].className.includes('positive')
              ? 'positive'
              : '',
          cells[5].textContent,
        ];
      }),
    );
    // Newest first: the curl job (charged, then cancelled by its owner), the long job's refund, the video, the long job, the grant.
    expect(ledger).toEqual([
      ['Refund', 'cancelled by you', '+404', 'positive', '4,596'],
      ['Charge', 'vidgen-2.0 job', '\u2212404', 'negative', '4,192'],
      ['Refund', 'cancelled by you', '+3,405', 'positive', '4,596'],
      ['Charge', 'vidgen-2.0 job', '\u2212404', 'negative', '1,191'],
      ['Charge', 'vidgen-2.0 job', '\u22123,405', 'negative', '1,595'],
      ['Grant', 'admin grant', '+5,000', 'positive', '5,000'],
    ]);
    await shot(page, 'overview-ledger');
  });

  it('shows usage by day, model and key for a date range, with CSV downloads; admins see the operator report', async () => {
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.locator('main > .page[data-path="/usage"] h1').waitFor();
    const totals = page.locator('dl.usage-totals dd');
    await totals.first().waitFor();
    // The ledger above: three charges (3,405 + 404 + 404), two refunds (3,405 + 404).
    expect(await totals.allTextContents()).toEqual(['3', '4,213', '3,809', '404']);
    const byModel = page.getByRole('table', { name: 'Usage by model' });
    expect(await byModel.locator('tbody tr').first().locator('th, td').allTextContents()).toEqual([
      'vidgen-2.0',
      '3',
      '4,213',
      '3,809',
      '404',
    ]);
    const byKey = page.getByRole('table', { name: 'Usage by API key' });
    const keyNets = await byKey.locator('tbody tr td:last-child').allTextContents();
    expect(keyNets.reduce((sum, n) => sum + Number(n.replace(/[^0-9-]/g, '')), 0)).toBe(404);
    // Today's bar is drawn; the chart's text says the range's net.
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.locator(`rect.chart-bar[data-day="${today}"]`).count()).toBe(1);
    expect(
      await page
        .getByRole('img', { name: /Credits net by day/ })
        .locator('desc')
        .textContent(),
    ).toMatch(/404 credits net, 3 jobs/);
    // The CSV download is the same usage as CSV, with the session's cookie.
    const href = await page.getByRole('link', { name: 'Download usage by model as CSV' }).getAttribute('href');
    const csv = await page.evaluate(async (url) => {
      const res = await (globalThis as unknown as PageWindow).fetch(url);
      return { type: res.headers.get('content-type'), text: await res.text() };
    }, href!);
    expect(csv.type).toBe('text/csv; charset=utf-8');
    expect(csv.text).toBe('model,jobs,credits_charged,credits_refunded,credits_net\r\nvidgen-2.0,3,4213,3809,404\r\n');
    // A range without usage says so.
    await page.getByLabel('From', { exact: true }).fill('2020-01-01');
    await page.getByLabel('To', { exact: true }).fill('2020-01-31');
    await page.getByRole('button', { name: 'Show usage' }).click();
    await page.getByText('No usage in this range').waitFor();
    await shot(page, 'usage');

    const adminEmail = `reporter${Date.now()}@example.test`;
    await fleet.admin('user:create', '--email', adminEmail, '--password', PASSWORD);
    await fleet.admin('user:role', '--email', adminEmail, '--role', 'admin');
    const admin = await newWatchedContext(browser);
    try {
      await admin.page.goto(`${base()}#/admin`);
      await admin.page.getByLabel('Email').fill(adminEmail);
      await admin.page.getByLabel('Password').fill(PASSWORD);
      await admin.page.getByRole('button', { name: 'Sign in' }).click();
      await admin.page.getByRole('heading', { name: 'Usage report' }).waitFor();
      await admin.page.getByRole('button', { name: 'Show report' }).click();
      const report = admin.page.getByRole('table', { name: 'Usage report by user' });
      // This user's row: their three charges, 404 net; the local renderer costs nothing upstream.
      const row = report.locator('tbody tr', { has: admin.page.getByRole('rowheader', { name: email }) });
      await row.waitFor();
      expect(await row.locator('td').allTextContents()).toEqual(['3', '404', '$4.04', '$0.00', '$4.04', '0']);
      await admin.page.getByRole('link', { name: 'Download the report as CSV' }).waitFor();
      await shot(admin.page, 'admin-usage-report');
    } finally {
      await admin.context.close();
    }
  });

  it("lists the job's webhook delivery in the key's delivery log, and sends a test event on request", async () => {
    await go(page, `#/keys/${keyId}`);
    const completedRow = page.locator('tbody tr[data-event="job.completed"]', { hasText: videoJobId });
    // Deliveries follow the job's event; refresh the log until it is there.
    for (let i = 0; i < 60 && (await completedRow.count()) === 0; i++) {
      await page.waitForTimeout(500);
      await page.getByRole('button', { name: 'Refresh log' }).click();
    }
    expect(await completedRow.locator('td').nth(4).textContent()).toBe('HTTP 200');

    // The receiver got exactly that event, signed with the secret the page showed once.
    const hook = receiver.received.find((r) => r.headers['x-service-event'] === 'job.completed');
    expect(hook).toBeDefined();
    expect(JSON.parse(hook!.rawBody)).toMatchObject({ job_id: videoJobId, status: 'completed' });
    expect(verifySignature(webhookSecret, hook!.headers['x-service-signature'] as string, hook!.rawBody)).toBe(true);

    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await waitForStatus(page, 'Test event delivered: your server answered HTTP 200.');
    await page.locator('tbody tr[data-event="webhook.test"]').waitFor();
    expect(receiver.received.length).toBe(before + 1);
    const test = receiver.received[before];
    expect(test.headers['x-service-event']).toBe('webhook.test');
    expect(verifySignature(webhookSecret, test.headers['x-service-signature'] as string, test.rawBody)).toBe(true);

    // A sample of the event a real handler acts on: a completed job in the real shape, marked as a test.
    await page.getByLabel('Test event').selectOption('job.completed');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await waitForStatus(page, 'Sample job.completed delivered: your server answered HTTP 200.');
    const sample = receiver.received[before + 1];
    expect(sample.headers).toMatchObject({ 'x-service-event': 'job.completed', 'x-service-test': 'true' });
    expect(verifySignature(webhookSecret, sample.headers['x-service-signature'] as string, sample.rawBody)).toBe(true);
    const real = JSON.parse(hook!.rawBody);
    const body = JSON.parse(sample.rawBody);
    expect(Object.keys(body)).toEqual(Object.keys(real));
    expect(body).toMatchObject({
      job_id: expect.stringMatching(/^job_test[A-Za-z0-9]+$/),
      status: 'completed',
      type: 'video',
      result: { video: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/media\/jobs\/job_test/) },
      error: null,
      source: 'api',
    });
    // Real deliveries carry no test header; the log marks the sample as a test.
    expect(hook!.headers['x-service-test']).toBeUndefined();
    const sampleRow = page.locator('tbody tr[data-event="job.completed"][data-test="true"]');
    await sampleRow.waitFor();
    expect(await sampleRow.locator('.badge-test').textContent()).toBe('test');
    await shot(page, 'key');
  });

  it('filters the delivery log by outcome, shows what an attempt sent and got, resends it and recovers', async () => {
    await go(page, `#/keys/${keyId}`);
    const completedRow = page.locator('tbody tr[data-event="job.completed"][data-test="false"]', {
      hasText: videoJobId,
    });
    await completedRow.waitFor();
    await page.getByLabel('Show').selectOption('failed');
    await page.getByText('No failed deliveries.').waitFor();
    await page.getByLabel('Show').selectOption('succeeded');
    await completedRow.waitFor();

    await completedRow.getByRole('button', { name: 'Details' }).click();
    const detail = page.getByTestId('delivery-detail');
    await detail.waitFor();
    const hook = receiver.received.find(
      (r) => r.headers['x-service-event'] === 'job.completed' && r.headers['x-service-test'] === undefined,
    )!;
    const shown = await detail.textContent();
    expect(shown).toContain(`X-Service-Signature: ${String(hook.headers['x-service-signature'])}`);
    expect(shown).toContain(hook.rawBody);

    const before = receiver.received.length;
    await completedRow.getByRole('button', { name: 'Resend' }).click();
    await waitForStatus(page, 'Event sent again: your server answered HTTP 200.');
    expect(receiver.received.length).toBe(before + 1);
    const again = receiver.received[before];
    expect(again.headers['x-service-event-id']).toBe(hook.headers['x-service-event-id']);
    expect(again.rawBody).toBe(hook.rawBody);
    expect(verifySignature(webhookSecret, again.headers['x-service-signature'] as string, again.rawBody)).toBe(true);

    // Nothing failed: recover finds nothing to send.
    await page.getByRole('button', { name: 'Resend failed events since then' }).click();
    await waitForStatus(page, 'No failed events since then.');
    expect(receiver.received.length).toBe(before + 1);
  });

  it('rolls the signing secret with the overlap chosen: a delivery then verifies with the old and the new secret', async () => {
    await go(page, `#/keys/${keyId}`);
    // The first attempt (the earlier resend is a row of its own, above it): any row resends the same event.
    const completedRow = page
      .locator('tbody tr[data-event="job.completed"][data-test="false"]', { hasText: videoJobId })
      .last();
    await completedRow.waitFor();
    type StatusWindow = { __statusLog?: string[] };
    /** Runs the action and waits for the status region to say `text` after it (earlier messages do not count). */
    const saysAfter = async (action: () => Promise<void>, text: string) => {
      const seen = await page.evaluate(() => ((globalThis as unknown as StatusWindow).__statusLog ?? []).length);
      await action();
      await page.waitForFunction(
        ([from, expected]) =>
          ((globalThis as unknown as StatusWindow).__statusLog ?? []).slice(from).some((m) => m.includes(expected)),
        [seen, text] as const,
        { timeout: 30_000 },
      );
    };
    /** Rolls with the given overlap through the dialog and returns the new secret the page shows once. */
    const roll = async (overlap: string, note: RegExp) => {
      await page.getByLabel('Keep the old secret signing for').selectOption(overlap);
      await saysAfter(async () => {
        await page.getByRole('button', { name: 'Roll secret' }).click();
        const dialog = page.getByRole('dialog', { name: 'Roll the signing secret?' });
        await dialog.getByRole('button', { name: 'Roll secret' }).click();
      }, 'Signing secret rolled. Copy the new secret now: it is shown only once.');
      const box = page.getByRole('region', { name: 'New signing secret' });
      expect(await box.textContent()).toMatch(note);
      return page.getByTestId('webhook-secret').inputValue();
    };
    /** Resends the job's event from the log and returns the delivery the receiver got. */
    const resend = async () => {
      const before = receiver.received.length;
      await saysAfter(
        () => completedRow.getByRole('button', { name: 'Resend' }).click(),
        'Event sent again: your server answered HTTP 200.',
      );
      expect(receiver.received.length).toBe(before + 1);
      return receiver.received[before];
    };

    const old = webhookSecret;
    const rolled = await roll('1', /The old secret keeps signing until/);
    expect(rolled).toMatch(/^whsec_/);
    expect(rolled).not.toBe(old);
    const during = await resend();
    expect(String(during.headers['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(stripeAccepts(during, rolled)).toBe(true);
    expect(stripeAccepts(during, old)).toBe(true);

    // "Stops now": the next delivery carries the newest secret's signature only.
    const latest = await roll('0', /The old secret no longer signs/);
    const after = await resend();
    expect(stripeAccepts(after, latest)).toBe(true);
    expect(stripeAccepts(after, rolled)).toBe(false);
    expect(stripeAccepts(after, old)).toBe(false);
    webhookSecret = latest;
    await shot(page, 'key-rolled');
  });

  it("sets the key's spend limit and concurrent-jobs limit, showing what the key spent this month against them", async () => {
    await go(page, `#/keys/${keyId}`);
    const card = page.getByRole('region', { name: 'Spend limits' });
    await card.getByLabel('Monthly spend limit (credits)').fill('900000');
    await card.getByLabel('Concurrent jobs').fill('40');
    await card.getByRole('button', { name: 'Save limits' }).click();
    await waitForStatus(page, 'Limits saved.');
    const shown = await card.locator('dd').allTextContents();
    expect(shown[0]).toMatch(/^[\d,.\s]+ of 900[,.\s]?000 credits$/);
    expect(shown[1]).toMatch(/^\d+ of 40 jobs$/);
    // Reloaded, the page shows the saved limits in the form.
    await go(page, `#/keys/${keyId}`);
    expect(await page.getByLabel('Concurrent jobs').inputValue()).toBe('40');
  });

  it('revokes the key through a keyboard-operated confirmation; Escape keeps it, and a revoked key gets 401', async () => {
    await go(page, '#/keys');
    const revoke = page.getByRole('button', { name: 'Revoke key render server' });
    await revoke.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: /Revoke the key “render server”/ });
    await dialog.waitFor();
    // The safe choice has the focus; Escape closes and gives the focus back.
    expect(await dialog.getByRole('button', { name: 'Cancel' }).evaluate(isFocused)).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await revoke.evaluate(isFocused)).toBe(true);
    expect((await api(fleet, 'GET', '/api/v1/account', { key: apiKey })).status).toBe(200);

    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    expect(await dialog.getByRole('button', { name: 'Revoke key' }).evaluate(isFocused)).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('tbody tr', { hasText: 'render server' }).locator('.badge-revoked').waitFor();
    await waitForStatus(page, 'The key “render server” is revoked.');

    const refused = await api(fleet, 'GET', '/api/v1/account', { key: apiKey });
    expect(refused.status).toBe(401);
  });

  it("shows an editor project: each video's tracks in order, the media library, and the export with a player and a download link", async () => {
    const editor = await fleet.admin(
      'key:create',
      '--email',
      email,
      '--scopes',
      'video-editor:write,video-editor:read',
      '--name',
      'editor',
    );
    const edit = async (method: string, p: string, body?: unknown) => {
      const res = await api(fleet, method, `/api/v1/media-studio/projects${p}`, { key: String(editor.key), body });
      if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const { project } = await edit('POST', '', { name: 'Harbour teaser', aspect_ratio: '16:9' });
    projectId = project.id;
    const p = `/${project.id}`;
    const still = (await edit('POST', `${p}/assets`, { url: `${ref.url}/ref.png` })).asset;
    const clip = (await edit('POST', `${p}/assets`, { url: `${ref.url}/clip.mp4` })).asset;
    const music = (await edit('POST', `${p}/assets`, { url: `${ref.url}/music.m4a` })).asset;
    await edit('POST', `${p}/clips`, { track: 'video', asset_id: clip.id });
    // Placed first: the timeline must follow idx, not the order of placement.
    await edit('POST', `${p}/clips`, { track: 'video', asset_id: still.id, idx: 0, duration_sec: 1 });
    await edit('POST', `${p}/clips`, { track: 'music', asset_id: music.id, volume: 0.5 });
    const exported = await edit('POST', `${p}/export`, {});

    await go(page, '#/projects');
    await page.getByRole('link', { name: 'Harbour teaser' }).waitFor();
    await shot(page, 'projects');
    await page.getByRole('link', { name: 'Harbour teaser' }).click();
    await page.getByRole('heading', { name: 'Harbour teaser', level: 1 }).waitFor();

    const videoTrack = page.getByRole('list', { name: 'Video', exact: true });
    expect(await videoTrack.locator('li.clip').evaluateAll((els) => els.map((el) => el.getAttribute('title')))).toEqual(
      ['ref.png', 'clip.mp4'],
    );
    expect(await page.getByRole('list', { name: 'Music', exact: true }).locator('li.clip').count()).toBe(1);
    expect(await page.getByRole('list', { name: 'Voice', exact: true }).textContent()).toBe('No clips');
    expect(await page.locator('.library li.asset').count()).toBe(3);
    // No instruct turns (no language model in this fleet): the thread says so.
    expect(await page.getByText('No messages yet.').count()).toBe(1);

    const download = page.getByRole('link', { name: 'Download mp4' });
    // The export, served from the page's own origin, saved under the project's name and a time stamp.
    expect(await download.getAttribute('href')).toBe(new URL(exported.video_url).pathname);
    expect(await download.getAttribute('download')).toMatch(/^Harbour teaser \d{4}-\d\d-\d\d \d\d-\d\d fit\.mp4$/);
    expect(await page.locator('.export-title').first().textContent()).toMatch(
      /^Export · Fit \(bars\) · \w{3} \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M/,
    );
    const player = page.locator('.exports video');
    const readyState = await player.evaluate(
      (v: MediaElement) =>
        new Promise<number>((resolve) => {
          if (v.readyState >= 1) resolve(v.readyState);
          else v.addEventListener('loadedmetadata', () => resolve(v.readyState), { once: true });
        }),
    );
    expect(readyState).toBeGreaterThanOrEqual(1);
    await shot(page, 'project');
  });

  it('shows a failed sign-in, then fits every page on a 390 px wide phone screen without horizontal scrolling', async () => {
    const phone = await newWatchedContext(browser, { width: 390, height: 844 });
    try {
      const p = phone.page;
      await p.goto(`${base()}#/signin`);
      await p.getByLabel('Email').fill(email);
      // An API error is shown in the alert region, and the form stays for another try.
      await p.getByLabel('Password').fill('not the password');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();
      expect(await p.getByRole('alert').filter({ hasText: 'Invalid email or password' }).isVisible()).toBe(true);
      await p.getByLabel('Password').fill(PASSWORD);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('heading', { name: 'Overview' }).waitFor();
      await p.locator('.chart').waitFor();
      expect(
        await p.evaluate(() => (globalThis as unknown as PageWindow).document.documentElement.scrollWidth),
      ).toBeLessThanOrEqual(390);
      await p.screenshot({ path: path.join(SHOTS, 'overview-390.png') });

      const tooWide: string[] = [];
      for (const hash of [
        '#/keys',
        `#/keys/${keyId}`,
        '#/jobs',
        `#/jobs/${videoJobId}`,
        '#/usage',
        '#/projects',
        `#/projects/${projectId}`,
      ]) {
        await go(p, hash);
        await p.locator('.loading').waitFor({ state: 'detached' });
        const width = await p.evaluate(
          () => (globalThis as unknown as PageWindow).document.documentElement.scrollWidth,
        );
        if (width > 390) tooWide.push(`${hash}: ${width}px`);
      }
      expect(tooWide).toEqual([]);
      await p.screenshot({ path: path.join(SHOTS, 'project-390.png'), fullPage: true });

      // The job page's attempts: each row a card of "column: value" lines (one under the other, each
      // named by its column) within the screen's width, no cell hidden or squeezed beside another.
      await go(p, `#/jobs/${videoJobId}`);
      const attempts = p.locator('table.attempts');
      await attempts.locator('tbody td').first().waitFor();
      const misplaced: string[] = [];
      let cellCount = 0;
      for (const row of await attempts.locator('tbody tr').all()) {
        let below = -1;
        for (const cell of await row.locator('td').all()) {
          cellCount++;
          const box = await cell.boundingBox();
          const label = await cell.getAttribute('data-label');
          if (!label || !(await cell.isVisible()) || !box || box.x < 0 || box.x + box.width > 390 || box.y < below)
            misplaced.push(`${label}: ${JSON.stringify(box)}`);
          below = box ? box.y + box.height - 1 : below;
        }
      }
      expect(cellCount).toBeGreaterThanOrEqual(8);
      expect(misplaced).toEqual([]);
      expect(
        await p.evaluate(() => (globalThis as unknown as PageWindow).document.documentElement.scrollWidth),
      ).toBeLessThanOrEqual(390);
      await attempts.scrollIntoViewIfNeeded();
      await p.screenshot({ path: path.join(SHOTS, 'job-attempts-390.png') });
    } finally {
      await phone.context.close();
    }
  });

  it('sent the CSRF token with every state-changing call, ran without script errors, and signs out', async () => {
    await go(page, '#/');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await waitForStatus(page, 'You are signed out.');

    // Sign-up has no session yet (its Origin is checked instead); every other write carries the token.
    const paths = writes.map((w) => w.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /dashboard/api/signup',
        'POST /dashboard/api/keys',
        `PUT /dashboard/api/keys/${keyId}/webhook`,
        `PUT /dashboard/api/keys/${keyId}/limits`,
        `DELETE /dashboard/api/jobs/${cancelJobId}`,
        `POST /dashboard/api/keys/${keyId}/webhook/test`,
        `DELETE /dashboard/api/keys/${keyId}`,
        'POST /dashboard/api/signout',
      ]),
    );
    const withoutToken = writes.filter((w) => !/^[\w-]{16,}$/.test(w.csrf ?? '')).map((w) => w.path);
    expect(withoutToken).toEqual(['POST /dashboard/api/signup']);

    // Signed out for real: the server no longer knows the session.
    const me = await page.evaluate(
      async () =>
        (await (globalThis as unknown as PageWindow).fetch('/dashboard/api/me', { credentials: 'same-origin' })).status,
    );
    expect(me).toBe(401);
    await page.goto(`${base()}#/keys`);
    await page.waitForURL(/#\/signin$/);

    // The only errors in the console are the expected 401s of a signed-out visitor's /me.
    const unexpected = customer.problems.filter(
      (msg) => !/Failed to load resource: the server responded with a status of 401/.test(msg),
    );
    expect(unexpected).toEqual([]);
  });
});
