import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (apt package `chromium`): playwright-core downloads no browser of its own. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium. launch() (not launchPersistentContext) gives every run a fresh temporary
 * profile, created by Playwright and deleted on close, so no cookie or cache leaks between runs.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface WatchedContext {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions of its pages (a CSP violation is a console error). */
  problems: string[];
}

/** A new isolated context (own cookies) with one page, recording what goes wrong in it. */
export async function newWatchedContext(
  browser: Browser,
  viewport = { width: 1280, height: 900 },
): Promise<WatchedContext> {
  // A fixed locale: the tests read numbers as the page formats them (5,000).
  const context = await browser.newContext({ viewport, locale: 'en-US' });
  const problems: string[] = [];
  context.on('page', (p) => {
    p.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    p.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  });
  const page = await context.newPage();
  return { context, page, problems };
}

// Page functions below run in the browser; this file compiles without the DOM library, so they
// reach the page through minimal shapes (the casts vanish in the compiled function).
interface ImageElement {
  src: string;
  complete: boolean;
  naturalWidth: number;
  scrollIntoView: (options?: { block: string }) => void;
  decode: () => Promise<void>;
}
interface VideoElement {
  src: string;
  currentSrc: string;
  readyState: number;
  error: { code: number } | null;
  addEventListener: (type: string, listener: () => void, options?: { once: boolean }) => void;
}
interface BrowserDocument {
  querySelectorAll: (selector: string) => ArrayLike<unknown>;
  documentElement: { scrollWidth: number; clientWidth: number };
}

/**
 * Every <img> of the page decoded with a natural width, and every <video> with its metadata
 * (readyState >= 1), within `timeoutMs` each. Images are scrolled into view first, as a reader
 * would: lazy ones load only then. Returns what failed, empty when everything loaded.
 */
export async function unloadedMedia(page: Page, timeoutMs = 15_000): Promise<string[]> {
  const images = await page.evaluate(async (timeout) => {
    const doc = (globalThis as unknown as { document: BrowserDocument }).document;
    const failed: string[] = [];
    for (const img of Array.from(doc.querySelectorAll('img')) as ImageElement[]) {
      img.scrollIntoView({ block: 'center' });
      await Promise.race([img.decode().catch(() => undefined), new Promise((r) => setTimeout(r, timeout))]);
      if (!(img.complete && img.naturalWidth > 0)) failed.push(`img ${img.src} naturalWidth ${img.naturalWidth}`);
    }
    return failed;
  }, timeoutMs);
  const videos = await page.evaluate(async (timeout) => {
    const doc = (globalThis as unknown as { document: BrowserDocument }).document;
    const states = (Array.from(doc.querySelectorAll('video')) as VideoElement[]).map(
      (v) =>
        new Promise<string | null>((resolve) => {
          const judge = () =>
            resolve(
              v.readyState >= 1
                ? null
                : `video ${v.currentSrc || v.src} readyState ${v.readyState}${v.error ? ` error ${v.error.code}` : ''}`,
            );
          if (v.readyState >= 1) return judge();
          v.addEventListener('loadedmetadata', judge, { once: true });
          v.addEventListener('error', judge, { once: true });
          setTimeout(judge, timeout);
        }),
    );
    return (await Promise.all(states)).filter((s): s is string => s !== null);
  }, timeoutMs);
  return [...images, ...videos];
}

/** How far the page is wider than its viewport (0: no sideways scrolling). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const el = (globalThis as unknown as { document: BrowserDocument }).document.documentElement;
    return Math.max(0, el.scrollWidth - el.clientWidth);
  });
}

/** Signs in on the dashboard's sign-in page and waits for the overview. */
export async function signInToDashboard(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/dashboard/#/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}
