// Polling for live status: one request at a time, paused while the tab is hidden, stopped with the page.

/**
 * Calls `tick` every `intervalMs` while `shouldContinue()` says so. A failing tick stops the poll
 * and goes to `onError` (the page shows it; Refresh starts the poll again).
 */
export interface PollerOptions {
  tick: () => Promise<void>;
  intervalMs: number;
  shouldContinue: () => boolean;
  onError: (err: unknown) => void;
}

export interface Poller {
  start(): void;
  stop(): void;
}

export function poller({ tick, intervalMs, shouldContinue, onError }: PollerOptions): Poller {
  let timer: number | null = null;
  let stopped = true;

  const schedule = (): void => {
    if (stopped || timer !== null || !shouldContinue()) return;
    timer = window.setTimeout(() => void run(), intervalMs);
  };
  const run = async (): Promise<void> => {
    timer = null;
    if (stopped) return;
    if (!document.hidden) {
      try {
        await tick();
      } catch (err) {
        stopped = true;
        onError(err);
        return;
      }
    }
    schedule();
  };
  return {
    /** Starts (or keeps) polling if there is anything to wait for. */
    start: () => {
      stopped = false;
      schedule();
    },
    stop: () => {
      stopped = true;
      if (timer !== null) window.clearTimeout(timer);
      timer = null;
    },
  };
}
