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
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface WatchedContext {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions of its pages (a CSP violation is a console error). */
  problems: string[];
}

/** A new isolated context (own cookies) with one page, recording what goes wrong in it. */
export async function newWatchedContext(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<WatchedContext> {
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
