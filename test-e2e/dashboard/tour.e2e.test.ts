import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '@mf/fleet';
import {
  launchBrowser,
  newWatchedContext,
  sidewaysOverflow,
  signInToDashboard,
  unloadedMedia,
  type WatchedContext,
} from '../support/browser';
import { api } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { waitForJob } from '../support/jobs';
import { startReferenceServer } from '../support/reference-server';
import { startReceiver } from '../support/webhook-receiver';

const PASSWORD = 'correct horse battery';
/** Where the screenshots are kept (test-artifacts/ is git-ignored): one folder per host and viewport. */
const SHOTS = path.join(REPO_ROOT, 'test-artifacts', 'dashboard', 'tour');
/**
 * Each host once and each screen once: the host decides only the origin (media URLs made for the
 * first must load on the second), the screen only the layout, and neither depends on the other.
 */
const TOURS = [
  { host: '127.0.0.1', viewport: { width: 1280, height: 800 } },
  { host: 'localhost', viewport: { width: 390, height: 844 } },
] as const;

interface Sized {
  getBoundingClientRect: () => { width: number; height: number; right: number };
}
const rect = (el: unknown) => (el as Sized).getBoundingClientRect();

/**
 * Every page of the dashboard, opened on `127.0.0.1` at 1280x800 and on `localhost` at 390x844
 * (the fleet's PUBLIC_BASE_URL is the first: media URLs must still load on the second): every <img> decoded, every <video> with its metadata, no sideways scrolling, what each
 * page must show (signed ledger, prompts, inputs, the playground's price and result, onboarding,
 * unclipped keys and delivery log, labelled exports), and a screenshot of each.
 */
describe('the dashboard on every host and screen', () => {
  let fleet: PooledFleet;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let ref: Awaited<ReturnType<typeof startReferenceServer>>;
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-tour-'));
  const email = `tour${Date.now()}@example.test`;
  const newcomer = `new${Date.now()}@example.test`;
  let key = '';
  let keyId = 0;
  let videoJob = '';
  let imageJob = '';
  let projectId = '';

  beforeAll(async () => {
    fs.rmSync(SHOTS, { recursive: true, force: true });
    const clip = path.join(mediaDir, 'clip.mp4');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
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
      clip,
    ]);
    ref = await startReferenceServer({ '/clip.mp4': { file: clip, contentType: 'video/mp4' } });
    receiver = await startReceiver();
    fleet = await pooledFleet();
    browser = await launchBrowser();

    // One user with something on every page: jobs of both kinds, a cancelled one, a webhook log,
    // an editor project with two exports. Made through the API, as a real user's would be.
    await fleet.admin('user:create', '--email', email, '--password', PASSWORD, '--credits', '20000');
    await fleet.admin('user:role', '--email', email, '--role', 'admin');
    await fleet.admin('user:create', '--email', newcomer, '--password', PASSWORD);
    const created = await fleet.admin('key:create', '--email', email, '--scopes', 'all', '--name', 'production server');
    key = String(created.key);
    keyId = Number(created.id);
    await fleet.admin('webhook:set', '--key-id', String(keyId), '--url', receiver.url);
    const submit = async (p: string, body: object) =>
      (await api(fleet, 'POST', p, { key, body })).body.job_id as string;
    videoJob = await submit('/api/v1/video/vidgen-2/generate', {
      prompt: 'a lighthouse at dusk, slow dolly in, waves below',
      duration_seconds: 4,
      resolution: '480p',
    });
    imageJob = await submit('/api/v1/image/imagegen/generate', {
      prompt: 'a red fox in fresh snow, morning light',
      num_images: 2,
      aspect_ratio: '16:9',
    });
    const cancelled = await submit('/api/v1/video/vidgen-2/generate', {
      prompt: 'a storm over the harbour (cancelled)',
      duration_seconds: 15,
    });
    await api(fleet, 'DELETE', `/api/v1/jobs/${cancelled}`, { key });
    await waitForJob(fleet, key, videoJob);
    await waitForJob(fleet, key, imageJob);

    const edit = async (method: string, p: string, body?: unknown) =>
      (await api(fleet, method, `/api/v1/media-studio/projects${p}`, { key, body })).body;
    projectId = (await edit('POST', '', { name: 'Harbour teaser', aspect_ratio: '16:9' })).project.id;
    const still = (await edit('POST', `/${projectId}/assets`, { url: `${ref.url}/ref.png` })).asset;
    const video = (await edit('POST', `/${projectId}/assets`, { url: `${ref.url}/clip.mp4` })).asset;
    await edit('POST', `/${projectId}/clips`, { track: 'video', asset_id: still.id, duration_sec: 1 });
    await edit('POST', `/${projectId}/clips`, { track: 'video', asset_id: video.id });
    await edit('POST', `/${projectId}/export`, { fit: 'fit' });
    await edit('POST', `/${projectId}/export`, { fit: 'fill' });
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await ref?.close();
    fs.rmSync(mediaDir, { recursive: true, force: true });
  });

  for (const { host, viewport } of TOURS) {
    const label = `${host}-${viewport.width}x${viewport.height}`;

    it(`shows every page with its media on ${host} at ${viewport.width}x${viewport.height}`, async () => {
      const origin = fleet.baseUrl.replace('127.0.0.1', host);
      const dir = path.join(SHOTS, label);
      fs.mkdirSync(dir, { recursive: true });
      const watched = await newWatchedContext(browser, viewport);
      const newcomerContext = await newWatchedContext(browser, viewport);
      try {
        const page = await signIn(watched, origin, email);
        const visit = async (name: string, hash: string, ready: (p: Page) => Promise<void> = async () => undefined) => {
          await page.goto(`${origin}/dashboard/${hash}`);
          await page.locator(`main > .page[data-path="${hash.slice(1).split('?')[0]}"] h1`).waitFor();
          await page.locator('.loading').first().waitFor({ state: 'detached' });
          await ready(page);
          const broken = await unloadedMedia(page);
          // Kept before judging, so a failure has its picture.
          await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
          expect({ page: name, broken }).toEqual({ page: name, broken: [] });
          expect({ page: name, overflow: await sidewaysOverflow(page) }).toEqual({ page: name, overflow: 0 });
        };

        await visit('overview', '#/', async (p) => {
          // Charges take credits away: negative and red; grants and refunds positive.
          const charge = p.locator('tr[data-kind="charge"] td.num.negative').first();
          expect(await charge.textContent()).toMatch(/^\u2212[\d,]+$/);
          expect(await p.locator('tr[data-kind="refund"] td.num.positive').first().textContent()).toMatch(/^\+[\d,]+$/);
        });

        await visit('keys', '#/keys', async (p) => {
          const revoke = p.getByRole('button', { name: 'Revoke key production server' });
          const box = await revoke.evaluate(rect);
          // One line (not "Revo-ke"), and on screen, not clipped by the table.
          expect(box.height).toBeLessThan(40);
          expect(box.right).toBeLessThanOrEqual(viewport.width);
        });

        await visit('key', `#/keys/${keyId}`, async (p) => {
          const jobCell = p.locator('tr[data-event="job.completed"] .job-id').first();
          await jobCell.waitFor();
          // A job id reads as one id, not one character per line.
          expect((await jobCell.evaluate(rect)).height).toBeLessThan(50);
          expect(await p.getByLabel('Test event').locator('option').allTextContents()).toEqual([
            'webhook.test: a ping',
            'job.completed: a sample completed video job',
            'job.failed: a sample failed job',
            'job.cancelled: a sample cancelled job',
          ]);
        });

        await visit('playground', '#/playground', async (p) => {
          await p.getByLabel('Model', { exact: true }).selectOption('imagegen-2');
          await p.getByLabel('Prompt', { exact: false }).first().fill(`a paper kite over ${host}`);
          await p.getByLabel('Number of images').fill('2');
          expect(await p.locator('.cost').textContent()).toBe('Cost: 100 credits');
          await p.getByRole('button', { name: 'Run (100 credits)' }).click();
          await p.locator('.run[data-status="completed"] .thumbs img').nth(1).waitFor({ timeout: 60_000 });
          expect(await p.locator('.run .result-links a').count()).toBe(2);
        });

        await visit('jobs', '#/jobs', async (p) => {
          await p.locator('li.job-card').nth(3).waitFor();
          const prompts = await p.locator('li.job-card .job-prompt').allTextContents();
          expect(prompts[0]).toBe(`a paper kite over ${host}`);
          expect(prompts).toContain('a lighthouse at dusk, slow dolly in, waves below');
          expect(await p.locator('li.job-card').first().locator('.source-tag').textContent()).toBe('Playground');
        });

        for (const [name, id, prompt] of [
          ['job-video', videoJob, 'a lighthouse at dusk, slow dolly in, waves below'],
          ['job-image', imageJob, 'a red fox in fresh snow, morning light'],
        ] as const) {
          await visit(name, `#/jobs/${id}`, async (p) => {
            const input = p.getByRole('region', { name: 'Input' });
            expect(await input.locator('dd[data-field="prompt"]').textContent()).toBe(prompt);
            expect(await input.locator('pre.curl').textContent()).toContain(`'${origin}/api/v1/`);
          });
        }

        await visit('projects', '#/projects');
        await visit('project', `#/projects/${projectId}`, async (p) => {
          const titles = await p.locator('.export-title').allTextContents();
          expect(titles).toEqual([
            expect.stringMatching(/^Export · Fill \(cropped\) · /),
            expect.stringMatching(/^Export · Fit \(bars\) · /),
          ]);
          const names = await p
            .getByRole('link', { name: 'Download mp4' })
            .evaluateAll((links) => links.map((a) => (a as unknown as { download: string }).download));
          expect(names).toEqual([
            expect.stringMatching(/^Harbour teaser [\d-]+ [\d-]+ fill\.mp4$/),
            expect.stringMatching(/^Harbour teaser [\d-]+ [\d-]+ fit\.mp4$/),
          ]);
        });

        await visit('admin', '#/admin', async (p) => {
          await p.getByRole('searchbox', { name: 'Email' }).fill('new');
          await p.getByRole('button', { name: 'Find user' }).click();
          await p.getByLabel(`Credits to grant to ${newcomer}`).waitFor();
        });

        // A new account: how credits come here, and a key form ready for typical use.
        const fresh = await signIn(newcomerContext, origin, newcomer);
        await fresh.getByRole('region', { name: 'Getting started' }).waitFor();
        expect(await sidewaysOverflow(fresh)).toBe(0);
        await fresh.screenshot({ path: path.join(dir, 'overview-new-account.png'), fullPage: true });
        await fresh.goto(`${origin}/dashboard/#/keys`);
        await fresh.getByRole('checkbox', { name: 'jobs:read', exact: true }).waitFor();
        expect(await fresh.getByRole('checkbox', { name: 'video:write', exact: true }).isChecked()).toBe(true);
        expect(await fresh.getByRole('checkbox', { name: 'video-editor:write', exact: true }).isChecked()).toBe(false);
        await fresh.screenshot({ path: path.join(dir, 'keys-new-account.png'), fullPage: true });

        // No CSP violation, no script error: only the signed-out /me of the sign-in page.
        const problems = [...watched.problems, ...newcomerContext.problems].filter((m) => !/status of 401/.test(m));
        expect(problems).toEqual([]);
      } finally {
        await watched.context.close();
        await newcomerContext.context.close();
      }
    });
  }
});

async function signIn(watched: WatchedContext, origin: string, email: string): Promise<Page> {
  await signInToDashboard(watched.page, origin, email, PASSWORD);
  return watched.page;
}
