import v8 from 'node:v8';
import vm from 'node:vm';

/** How long after `ready` the start-up garbage is collected: past the first requests' burst. */
export const SETTLE_AFTER_MS = 1000;

/**
 * One memory-reducing full collection shortly after start-up. Start-up leaves garbage behind (the
 * migrations' and modules' initialisation, the bundle's parse) that an idle service would otherwise
 * keep resident until its heap grows enough for V8 to collect: 2-5 MiB of RSS per service
 * (the memory bench, bench/README.md). One pause of 5-20 ms, once.
 * The timer is unref'd: it never keeps a stopping process alive.
 */
export function settleHeapAfterStart(delayMs = SETTLE_AFTER_MS): NodeJS.Timeout {
  const timer = setTimeout(() => collectAllGarbage(), delayMs);
  timer.unref();
  return timer;
}

/** A full collection without `--expose-gc` on the command line (a fresh context's `gc`, global scope untouched). */
export function collectAllGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  // A full, synchronous collection (V8's gc() without options).
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
}
