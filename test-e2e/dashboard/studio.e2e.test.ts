import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '@mf/fleet';
import {
  callTools,
  lastUserText,
  say,
  startFakeLlm,
  stepOfTurn,
  toolCall,
  toolResults,
  type FakeLlm,
  type LlmRequest,
} from '../../services/editor-agent/test/support/fake-llm';
import {
  launchBrowser,
  newWatchedContext,
  sidewaysOverflow,
  signInToDashboard,
  unloadedMedia,
} from '../support/browser';
import { api, startFleet, type Fleet } from '../support/fleet';
import { waitForJob } from '../support/jobs';

const PASSWORD = 'correct horse battery';
/** Screenshots (test-artifacts/ is git-ignored), one per part of the studio and width. */
const SHOTS = path.join(REPO_ROOT, 'test-artifacts', 'dashboard', 'studio');

/** The scripted model: an image of what was asked for, placed on the video track, then a reply. */
function script(req: LlmRequest) {
  const said = lastUserText(req);
  const step = stepOfTurn(req);
  if (step === 0) return callTools([toolCall('generate_image', { prompt: `a paper lantern: ${said}` })]);
  if (step === 1)
    return callTools([
      toolCall('add_clip', { track: 'video', asset_id: toolResults(req)[0].asset_id, duration_sec: 1 }),
    ]);
  return say('I made a lantern image and put it on the timeline.');
}

/** What the drop below uses of the page's DOM (this file compiles without the DOM library). */
interface DropPage {
  document: {
    createElement(tag: 'canvas'): {
      width: number;
      height: number;
      getContext(kind: '2d'): { fillStyle: string; fillRect(x: number, y: number, w: number, h: number): void };
      toBlob(done: (blob: unknown) => void, type: string): void;
    };
  };
  DataTransfer: new () => { items: { add(file: unknown): void } };
  File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
  DragEvent: new (type: string, init: Record<string, unknown>) => unknown;
}

/** Run in the page on the library: a PNG drawn on a canvas, dropped as a file from the desktop would be. */
async function dropAPng(section: { dispatchEvent(event: unknown): boolean }): Promise<void> {
  const w = globalThis as unknown as DropPage;
  const canvas = w.document.createElement('canvas');
  canvas.width = 64;
  canvas.height = 36;
  const g = canvas.getContext('2d');
  g.fillStyle = '#c33';
  g.fillRect(0, 0, 64, 36);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  const files = new w.DataTransfer();
  files.items.add(new w.File([blob], 'dropped.png', { type: 'image/png' }));
  section.dispatchEvent(new w.DragEvent('drop', { dataTransfer: files, bubbles: true, cancelable: true }));
}

interface UsageRow {
  api_key_id: number | null;
  credits_net: number;
}

/**
 * The studio (the project page) in Chromium, on a fleet with a scripted language model and the
 * local providers (no network): a job's result used in a project, an upload and a dropped file,
 * a streamed turn with its steps and credits, reorder and remove on the timeline, a background
 * export to a player, at 1366 and 390 pixels wide; the session's turns billed under no key.
 */
describe('the studio in the dashboard', () => {
  let fleet: Fleet;
  let llm: FakeLlm;
  let browser: Browser;
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-studio-'));
  const clip = path.join(mediaDir, 'harbour.mp4');
  const email = `studio${Date.now()}@example.test`;
  let key = '';
  let keyId = 0;
  let imageJob = '';
  let imageCost = 0;
  let projectId = '';

  beforeAll(async () => {
    fs.rmSync(SHOTS, { recursive: true, force: true });
    fs.mkdirSync(SHOTS, { recursive: true });
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=24', '-t', '1'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', clip],
    ]);
    llm = await startFakeLlm((req) => script(req));
    [fleet, browser] = await Promise.all([
      startFleet({
        RATE_LIMIT_PER_MINUTE: '100000',
        LLM_BASE_URL: llm.baseUrl,
        LLM_MODEL: 'fake',
        MEDIA_POLL_MS: '200',
        EXPORT_RATE_LIMIT: '100',
      }),
      launchBrowser(),
    ]);
    await fleet.admin('user:create', '--email', email, '--password', PASSWORD, '--credits', '5000');
    const created = await fleet.admin('key:create', '--email', email, '--scopes', 'all', '--name', 'server');
    key = String(created.key);
    keyId = Number(created.id);
    const submitted = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key,
      body: { prompt: 'a quiet harbour at dawn', num_images: 1, aspect_ratio: '16:9' },
    });
    imageJob = submitted.body.job_id as string;
    await waitForJob(fleet, key, imageJob);
    // The key has spent all it may: the studio's turns, not the key's, still run.
    imageCost = Number(submitted.body.credits_consumed);
    await keyLimits();
  }, 120_000);

  const keyLimits = () =>
    fleet.admin('key:limits', '--id', String(keyId), '--spend-limit', String(imageCost), '--max-concurrent-jobs', '1');

  afterAll(async () => {
    await browser?.close();
    await fleet?.shutdown();
    await llm?.close();
    fs.rmSync(mediaDir, { recursive: true, force: true });
  });

  const signIn = (page: Page): Promise<void> => signInToDashboard(page, fleet.baseUrl, email, PASSWORD);

  const timelineClips = (page: Page) => page.getByRole('region', { name: 'Timeline' }).locator('li.clip');

  /** Sends an instruction and follows the turn live: a tool call, a generation, then the reply. */
  async function instruct(page: Page, text: string): Promise<void> {
    await page.getByRole('textbox', { name: 'Instruction' }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    const turn = page.locator('li.turn-live').last();
    await turn.locator('.turn-step[data-kind="tool_call"]').first().waitFor();
    await turn.locator('.turn-step[data-kind="generation"] progress').waitFor();
    await page.locator('li.turn-live:not([data-state="running"])').last().waitFor({ timeout: 60_000 });
    expect(await turn.getAttribute('data-state')).toBe('done');
    expect(await turn.locator('.message-agent > .message-text').textContent()).toBe(
      'I made a lantern image and put it on the timeline.',
    );
    // The credits line follows the reply: it is the balance after the turn, asked once the turn ended.
    await turn.locator('.turn-credits[data-credits]').waitFor();
    expect(await turn.locator('.turn-credits').textContent()).toMatch(/^Credits spent: [\d,]+ credits?$/);
  }

  /** Exports: the progress bar while it renders, then a player of the result with Download. */
  async function exportVideo(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await page.locator('.export-run[data-status="rendering"] progress').waitFor();
    await page.locator('.export-run[data-status="completed"] video').waitFor({ timeout: 60_000 });
    const download = page.locator('.export-run').getByRole('link', { name: 'Download' });
    expect(await download.getAttribute('href')).toMatch(/\/media\//);
    expect(await download.getAttribute('download')).toMatch(/\.mp4$/);
    await page.locator('ul.exports li.export').first().waitFor();
  }

  it('works on a project at 1366 px: use a job, upload, drop, chat, reorder, remove, export', async () => {
    const watched = await newWatchedContext(browser, { width: 1366, height: 900 });
    const { page } = watched;
    try {
      // Signed out: the app's first look at the session is not an error.
      await page.goto(`${fleet.baseUrl}/dashboard/`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await signIn(page);

      // The playground with no prompt yet asks the server for no price.
      await page.goto(`${fleet.baseUrl}/dashboard/#/playground`);
      await page.getByRole('button', { name: /^Run/ }).waitFor();

      // A completed job's result into a new project, from the job's page.
      await page.goto(`${fleet.baseUrl}/dashboard/#/jobs/${imageJob}`);
      await page.getByLabel('Project', { exact: true }).selectOption({ label: 'A new project' });
      await page.getByRole('button', { name: 'Use in project' }).click();
      await page.getByRole('link', { name: 'Open the project' }).click();
      await page.getByRole('heading', { level: 1, name: 'a quiet harbour at dawn' }).waitFor();
      projectId = page.url().split('#/projects/')[1];
      const library = page.getByRole('region', { name: 'Media library' });
      await library.locator('li.asset[data-kind="image"]').waitFor();

      // An upload through the file input, then a file dropped on the library.
      await page.getByLabel('Upload media').setInputFiles(clip);
      await library.locator('li.asset[data-kind="video"]').waitFor();
      await library.evaluate(dropAPng);
      await library
        .locator('li.asset')
        .nth(2)
        .waitFor()
        .catch(async (err: Error) => {
          throw new Error(`${err.message}\nupload status: ${await library.locator('.upload-status').textContent()}`);
        });
      expect(await library.locator('.asset-name').allTextContents()).toContain('dropped.png');
      await library.getByRole('button', { name: 'Add harbour.mp4 to the timeline' }).click();
      await timelineClips(page).first().waitFor();

      await instruct(page, 'Make a lantern image and add it');
      await timelineClips(page).nth(1).waitFor();
      const kinds = () => timelineClips(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-asset-kind')));
      expect(await kinds()).toEqual(['video', 'image']);
      expect(await timelineClips(page).locator('.clip-duration').allTextContents()).toEqual([
        expect.stringMatching(/s$/),
        expect.stringMatching(/s$/),
      ]);
      await page.getByRole('region', { name: 'Timeline' }).screenshot({ path: path.join(SHOTS, 'timeline-1366.png') });
      await page.getByRole('region', { name: 'Chat' }).screenshot({ path: path.join(SHOTS, 'chat-1366.png') });

      // Reorder and remove with the direct edits.
      await page.getByRole('button', { name: 'Move Video clip 2 earlier' }).click();
      await page.locator('li.clip[data-asset-kind="image"] .clip-idx', { hasText: '1.' }).waitFor();
      expect(await kinds()).toEqual(['image', 'video']);
      await page.getByRole('button', { name: 'Remove Video clip 1' }).click();
      await page.getByRole('button', { name: 'Move Video clip 2 earlier' }).waitFor({ state: 'detached' });
      expect(await kinds()).toEqual(['video']);

      await exportVideo(page);
      await page.getByRole('region', { name: 'Exports' }).screenshot({ path: path.join(SHOTS, 'export-1366.png') });
      await library.screenshot({ path: path.join(SHOTS, 'library-1366.png') });
      expect(await unloadedMedia(page)).toEqual([]);
      expect(await sidewaysOverflow(page)).toBe(0);
      await page.screenshot({ path: path.join(SHOTS, 'studio-1366.png'), fullPage: true });

      // The API reference: no blocked logo, no missing icon.
      await page.goto(`${fleet.baseUrl}/api/v1/reference`);
      await page.getByText('API docs by Redocly').waitFor({ timeout: 30_000 });
      expect(watched.problems).toEqual([]);
    } finally {
      await watched.context.close();
    }
  }, 150_000);

  it('works on a phone (390 px): chat, a clip on the timeline, export to a player', async () => {
    const watched = await newWatchedContext(browser, { width: 390, height: 844 });
    const { page } = watched;
    try {
      await signIn(page);
      await page.goto(`${fleet.baseUrl}/dashboard/#/projects/${projectId}`);
      await timelineClips(page).first().waitFor();
      await instruct(page, 'Another lantern, please');
      await timelineClips(page).nth(1).waitFor();
      await exportVideo(page);
      expect(await sidewaysOverflow(page)).toBe(0);
      await page.screenshot({ path: path.join(SHOTS, 'studio-390.png'), fullPage: true });
      expect(watched.problems).toEqual([]);
    } finally {
      await watched.context.close();
    }
  }, 120_000);

  it('bills the studio’s turns to the user under no key: the key’s usage and limits are its own', async () => {
    const usage = await api(fleet, 'GET', '/api/v1/usage?group_by=key', { key });
    expect(usage.status).toBe(200);
    const rows = usage.body.rows as UsageRow[];
    // The key made only the image job; the two turns and their images are the session's.
    expect(rows.find((r) => r.api_key_id === keyId)?.credits_net).toBe(imageCost);
    expect(rows.find((r) => r.api_key_id === null)?.credits_net).toBeGreaterThan(0);
    const ledger = await api(fleet, 'GET', '/api/v1/ledger?limit=100', { key });
    const turns = (ledger.body.entries as { model: string; api_key_id: number | null }[]).filter(
      (e) => e.model === 'editor-turn',
    );
    expect(turns).toHaveLength(2);
    expect(turns.every((e) => e.api_key_id === null)).toBe(true);
    // The key's own counters moved for its job only.
    expect(await keyLimits()).toMatchObject({ spent_this_period: imageCost, active_jobs: 0 });
  });
});
