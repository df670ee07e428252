import type { LiveEvent } from '../../core/events/live-event';
import type { ToolContext } from './tool';

/** A followed call's task was cancelled: it no longer follows what it started. */
export class TaskCancelled extends Error {
  constructor() {
    super('Task cancelled');
  }
}

/** `work`, until the call's task is cancelled (then `TaskCancelled`; the work itself runs on). */
export function untilCancelled<T>(ctx: ToolContext, work: Promise<T>): Promise<T> {
  const signal = ctx.task?.signal;
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new TaskCancelled());
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** How often a followed call reads its state by default when no event came. */
export const FOLLOW_POLL_MS = 5_000;

/**
 * Follows one record (a job, a background export) until it ends: each of its states from the
 * user's live events on this replica (`fromEvent`), and from reading it every poll period (events
 * are best effort, and may come from before the follow began). `onState` sees each state; the
 * answer is the first ended one. A read that fails ends the follow with its error; past
 * `timeoutMs`, `timedOut()` is thrown; once the call's task is cancelled, the follow ends with `TaskCancelled`.
 */
export function followUntilEnded<T>(
  ctx: ToolContext,
  f: {
    fromEvent: (e: LiveEvent) => T | undefined;
    read: () => Promise<T>;
    ended: (state: T) => boolean;
    onState: (state: T) => void;
    timeoutMs: number;
    timedOut: () => Error;
  },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const end = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      stopEvents?.();
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const signal = ctx.task?.signal;
    const onAbort = () => end(() => reject(new TaskCancelled()));
    const seen = (state: T) => {
      if (settled) return;
      if (f.ended(state)) end(() => resolve(state));
      else f.onState(state);
    };
    const stopEvents = ctx.events?.subscribe(ctx.auth.userId, (e) => {
      const state = f.fromEvent(e);
      if (state !== undefined) seen(state);
    });
    const deadline = Date.now() + f.timeoutMs;
    const poll = setInterval(() => {
      if (Date.now() > deadline) end(() => reject(f.timedOut()));
      // The use case's own error (an AppError: the REST status and body), passed on as it is.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      else f.read().then(seen, (err: unknown) => end(() => reject(err)));
    }, ctx.followPollMs ?? FOLLOW_POLL_MS);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
