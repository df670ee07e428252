import type { Logger } from '@mf/logger';

export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

/**
 * Runs the steps in order on SIGTERM or SIGINT (stop HTTP, cancel consumers and wait for acks,
 * close the broker, close the pool), then exits; exits anyway after the timeout.
 * Returns the function so tests and main() can trigger the same path.
 */
export function onShutdown(
  logger: Logger,
  timeoutMs: number,
  steps: ShutdownStep[],
): (reason: string) => Promise<void> {
  let started = false;
  const shutdown = async (reason: string): Promise<void> => {
    if (started) return;
    started = true;
    logger.info({ reason }, 'shutting down');
    const killer = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    killer.unref();
    let code = 0;
    for (const step of steps) {
      try {
        await step.run();
      } catch (err) {
        code = 1;
        logger.error({ err, step: step.name }, 'shutdown step failed');
      }
    }
    logger.info('stopped');
    clearTimeout(killer);
    process.exit(code);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return shutdown;
}
