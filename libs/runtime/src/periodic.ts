import { AsyncResource } from 'node:async_hooks';
import type { Logger } from '@mf/logger';

export interface PeriodicTask {
  /** Runs the task soon, without waiting for the interval (e.g. right after a commit). */
  kick: () => void;
  /** Stops scheduling and waits for a run in progress to finish. */
  stop: () => Promise<void>;
}

/**
 * Runs `fn` every `intervalMs`, one run at a time. When a run reports work done (> 0) it runs again
 * at once, so a backlog drains without waiting for the timer. Errors are logged, never thrown.
 */
export function periodic(name: string, intervalMs: number, fn: () => Promise<number>, logger: Logger): PeriodicTask {
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const cancel = (): void => {
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
    timer = null;
    immediate = null;
  };

  // "At once" is the next turn of the event loop (setImmediate): setTimeout(0) waits at least 1 ms,
  // which a kick after a commit (the outbox relay, a provider's callback waking the poller) pays.
  const schedule = (ms: number): void => {
    if (stopped) return;
    cancel();
    if (ms <= 0) immediate = setImmediate(run);
    else timer = setTimeout(run, ms);
  };

  // Every run in the context the task was made in, never in the one of whoever kicked it: a kick
  // from inside a request would otherwise make that request's trace the parent of every later run.
  const run = AsyncResource.bind((): void => {
    cancel();
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      let worked = 0;
      try {
        worked = await fn();
      } catch (err) {
        logger.error({ err, task: name }, 'periodic task failed');
      } finally {
        running = null;
      }
      const soon = again || worked > 0;
      again = false;
      schedule(soon ? 0 : intervalMs);
    })();
  });

  schedule(0);
  return {
    kick: () => (running ? (again = true) : schedule(0)),
    stop: async () => {
      stopped = true;
      cancel();
      await running;
    },
  };
}
