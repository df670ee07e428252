import type { Logger } from '@mf/logger';
import { fallbackLimiter } from './fallback';

/** A logger that keeps its warnings. */
function recordingLogger(): Logger & { warnings: unknown[][] } {
  const warnings: unknown[][] = [];
  return { warnings, warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger & {
    warnings: unknown[][];
  };
}

describe("fallbackLimiter (the shared store's per-process insurance)", () => {
  it('limits per key on its own: the allowance, then refusals', async () => {
    const limiter = fallbackLimiter({ points: 2, logger: recordingLogger(), store: 'redis' });
    await expect(limiter.consume('k')).resolves.toMatchObject({ remainingPoints: 1 });
    await expect(limiter.consume('k')).resolves.toMatchObject({ remainingPoints: 0 });
    await expect(limiter.consume('k')).rejects.toMatchObject({ remainingPoints: 0 });
    await expect(limiter.consume('other')).resolves.toMatchObject({ remainingPoints: 1 });
  });

  it('logs the first request it counts, then at most once a minute with the number counted since', async () => {
    let clock = 1_000_000;
    const logger = recordingLogger();
    const limiter = fallbackLimiter({ points: 100, logger, store: 'postgres', now: () => clock });
    await limiter.consume('k');
    expect(logger.warnings).toEqual([
      [{ store: 'postgres', requests: 1 }, expect.stringContaining('counting per process')],
    ]);

    await limiter.consume('k');
    clock += 59_999;
    await limiter.consume('k');
    expect(logger.warnings).toHaveLength(1);

    clock += 1;
    await limiter.consume('k');
    expect(logger.warnings).toHaveLength(2);
    expect(logger.warnings[1][0]).toEqual({ store: 'postgres', requests: 3 });
  });
});
