import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { REPO_ROOT } from '@mf/fleet';
import {
  launchBrowser,
  newWatchedContext,
  sidewaysOverflow,
  signInToDashboard,
  type WatchedContext,
} from '../support/browser';
import { pooledFleet, type PooledFleet } from '../support/pool';

const PASSWORD = 'correct horse battery';
/** Screenshots (test-artifacts/ is git-ignored). */
const SHOTS = path.join(REPO_ROOT, 'test-artifacts', 'dashboard', 'studio-drag-upload');
/** The answers the pages are meant to get (the browser logs each failed call as a console error). */
const expectedFailures = (statuses: number[]) => (msg: string) =>
  !statuses.some((s) => msg.includes(`Failed to load resource: the server responded with a status of ${s}`));

/**
 * The studio's timeline and uploads in Chromium: a clip dragged to a new place in its track (kept
 * after a reload; put back when the server refuses), and uploads with a byte progress bar that
 * ends at 100 before the asset shows in the library, or the server's message when it is refused.
 */
describe('dragging clips and uploading with progress in the studio', () => {
  let fleet: PooledFleet;
  let browser: Browser;
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-studio-drag-'));
  // About 10 MB (constant bitrate with filler): a body the browser sends in many progress steps.
  const bigClip = path.join(mediaDir, 'harbour-long.mp4');
  const still = path.join(mediaDir, 'lantern.png');
  const email = `studio-drag${Date.now()}@example.test`;

  beforeAll(async () => {
    fs.rmSync(SHOTS, { recursive: true, force: true });
    fs.mkdirSync(SHOTS, { recursive: true });
    const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
    ffmpeg(
      ...['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=24', '-t', '2', '-c:v', 'libx264', '-preset', 'ultrafast'],
      ...['-b:v', '40M', '-minrate', '40M', '-maxrate', '40M', '-bufsize', '4M', '-x264-params', 'nal-hrd=cbr'],
      ...['-pix_fmt', 'yuv420p', bigClip],
    );
    ffmpeg('-f', 'lavfi', '-i', 'color=c=orange:size=64x36', '-frames:v', '1', still);
    [fleet, browser] = await Promise.all([pooledFleet(), launchBrowser()]);
    await fleet.admin('user:create', '--email', email, '--password', PASSWORD, '--credits', '1000');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(mediaDir, { recursive: true, force: true });
  });

  const signIn = (page: Page): Promise<void> => signInToDashboard(page, fleet.baseUrl, email, PASSWORD);

  async function newProject(page: Page, name: string): Promise<void> {
    await page.goto(`${fleet.baseUrl}/dashboard/#/projects`);
    await page.getByLabel('New project').fill(name);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
  }

  const library = (page: Page) => page.getByRole('region', { name: 'Media library' });
  const videoClips = (page: Page) => page.getByRole('region', { name: 'Timeline' }).locator('.track-video li.clip');
  const clipIds = (page: Page) => videoClips(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-clip-id')));

  /** Uploads a file through `Upload media`; the bar ends at 100, having only risen, when the asset shows. */
  async function uploadWithProgress(page: Page, file: string, kind: string, count: number): Promise<number[]> {
    await page.getByLabel('Upload media').setInputFiles(file);
    await library(page)
      .locator(`li.asset[data-kind="${kind}"]`)
      .nth(count - 1)
      .waitFor({ timeout: 60_000 });
    const bar = page.getByRole('progressbar', { name: 'Upload progress' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('100');
    const values = String(await bar.getAttribute('data-values'))
      .split(' ')
      .map(Number);
    expect(values[0]).toBe(0);
    expect(values[values.length - 1]).toBe(100);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(await library(page).locator('.upload-status').textContent()).toBe(`Uploaded ${path.basename(file)}.`);
    return values;
  }

  /** Drags a clip by the mouse onto the left part of another: the drop line shows before it, then it drops. */
  async function dragBefore(page: Page, clip: Locator, onto: Locator, shot?: string): Promise<void> {
    // No edit or reload under way: one would redraw the timeline under the mouse.
    await page.locator('.timeline-box[aria-busy="false"]').waitFor();
    // The mouse works in the viewport: the timeline is above the library the clips were added from.
    await page.getByRole('region', { name: 'Timeline' }).scrollIntoViewIfNeeded();
    const from = await clip.locator('.clip-name').boundingBox();
    const to = await onto.boundingBox();
    if (!from || !to) throw new Error('a clip is not on screen');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + 10, to.y + to.height / 2, { steps: 8 });
    await onto.and(page.locator('.drop-before')).waitFor();
    if (shot) await page.getByRole('region', { name: 'Timeline' }).screenshot({ path: path.join(SHOTS, shot) });
    await page.mouse.up();
  }

  async function finish(watched: WatchedContext, allowed: number[]): Promise<void> {
    expect(await sidewaysOverflow(watched.page)).toBe(0);
    expect(watched.problems.filter(expectedFailures(allowed))).toEqual([]);
  }

  it('at 1366 px: uploads with a rising bar, then a clip dragged first stays first after a reload', async () => {
    const watched = await newWatchedContext(browser, { width: 1366, height: 900 });
    const { page } = watched;
    try {
      await signIn(page);
      await newProject(page, 'Drag and upload');
      await uploadWithProgress(page, bigClip, 'video', 1);
      await library(page).screenshot({ path: path.join(SHOTS, 'upload-1366.png') });
      await uploadWithProgress(page, still, 'image', 1);

      // Three clips on the video track: the video, the still, the video again.
      for (const [name, n] of [
        ['harbour-long.mp4', 1],
        ['lantern.png', 2],
        ['harbour-long.mp4', 3],
      ] as const) {
        await library(page)
          .getByRole('button', { name: `Add ${name} to the timeline` })
          .click();
        await videoClips(page)
          .nth(n - 1)
          .waitFor();
      }
      const [a, b, c] = await clipIds(page);

      // The last clip dragged onto the first: it goes first, numbered by the server's answer.
      await dragBefore(page, videoClips(page).nth(2), videoClips(page).nth(0), 'drag-indicator-1366.png');
      await page.locator(`li.clip[data-clip-id="${c}"] .clip-idx`, { hasText: '1.' }).waitFor();
      expect(await clipIds(page)).toEqual([c, a, b]);
      await page.reload();
      await videoClips(page).nth(2).waitFor();
      expect(await clipIds(page)).toEqual([c, a, b]);

      // The buttons still move clips too.
      await page.getByRole('button', { name: 'Move Video clip 3 earlier' }).click();
      await page.locator(`li.clip[data-clip-id="${a}"] .clip-idx`, { hasText: '3.' }).waitFor();
      expect(await clipIds(page)).toEqual([c, b, a]);

      // A refused move: its error shows and the track is back in the server's order.
      await page.route('**/dashboard/api/projects/*/clips/*', (route) =>
        route.request().method() === 'PATCH'
          ? route.fulfill({
              status: 409,
              contentType: 'application/json',
              body: JSON.stringify({ error: 'conflict', message: 'The timeline changed meanwhile' }),
            })
          : route.continue(),
      );
      await dragBefore(page, videoClips(page).nth(2), videoClips(page).nth(0));
      await page.locator('.error-message', { hasText: 'The timeline changed meanwhile' }).waitFor();
      expect(await clipIds(page)).toEqual([c, b, a]);
      await page.unroute('**/dashboard/api/projects/*/clips/*');
      // The page's picture of where the timeline is: the reload after the refusal may redraw it meanwhile.
      const timeline = await page.getByRole('region', { name: 'Timeline' }).boundingBox();
      await page.screenshot({ path: path.join(SHOTS, 'timeline-1366.png'), clip: timeline ?? undefined });
      await finish(watched, [409]);
    } finally {
      await watched.context.close();
    }
  }, 150_000);

  it('at 390 px: an upload with its bar at 100, and a file the server refuses shows its message', async () => {
    const watched = await newWatchedContext(browser, { width: 390, height: 844 });
    const { page } = watched;
    try {
      await signIn(page);
      await newProject(page, 'Upload on a phone');
      await uploadWithProgress(page, bigClip, 'video', 1);
      await library(page).screenshot({ path: path.join(SHOTS, 'upload-390.png') });

      // Text named .mp4: the server reads the bytes and answers 415 with its message.
      await page.getByLabel('Upload media').setInputFiles({
        name: 'notes.mp4',
        mimeType: 'video/mp4',
        buffer: Buffer.from('not a video at all, only some words'),
      });
      const status = library(page).locator('.upload-status[data-state="failed"]');
      await status.waitFor();
      expect(await status.textContent()).toMatch(/^notes\.mp4: Unsupported media type: the file must be /);
      expect(await page.getByRole('progressbar', { name: 'Upload progress' }).count()).toBe(0);
      await library(page).screenshot({ path: path.join(SHOTS, 'upload-refused-390.png') });
      await finish(watched, [415]);
    } finally {
      await watched.context.close();
    }
  }, 120_000);
});
