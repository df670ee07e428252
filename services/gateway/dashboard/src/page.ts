import type { DashboardSession } from './contracts.js';

/** What the router hands each page (app.ts builds it per navigation). */
export interface PageContext {
  /** The page's element: everything the page shows goes inside it. */
  root: HTMLElement;
  /** The route's :params, decoded. */
  params: Record<string, string>;
  /** Who is signed in; set on every page but sign-in and sign-up. */
  session: DashboardSession | null;
  setSession(value: DashboardSession | null): void;
  navigate(hash: string): void;
  /** Runs when the user leaves the page (stop polls and timers). */
  onCleanup(fn: () => void): void;
  /** False once the user has left: late answers must not act on the next page. */
  isCurrent(): boolean;
  /** After signing in: back to the page asked for (or an OAuth authorization), else the overview. */
  afterSignIn(): void;
}

/** A page: draws itself into ctx.root; a rejection is shown as an error while the page is current. */
export type Page = (ctx: PageContext) => void | Promise<void>;
