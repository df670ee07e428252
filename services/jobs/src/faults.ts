import type { Logger } from '@mf/logger';
import type { Provider } from './providers/provider';

/**
 * Test-only fault injection (FAULT_POINTS), wired in main.ts so that no use case carries test code.
 * `after-charge`: the process dies when a submit reaches the provider, that is right after its
 * charge was confirmed and before the provider has the job; the sweeper must then refund it.
 *
 * The production build carries none of it: scripts/build puts faults.production.ts in its place.
 */
const POINTS = ['after-charge'] as const;
export type FaultPoint = (typeof POINTS)[number];
export const FAULT_POINTS: readonly FaultPoint[] = POINTS;

export function isFaultPoint(name: string): name is FaultPoint {
  return (FAULT_POINTS as readonly string[]).includes(name);
}

/** `provider` itself when no point is set; otherwise a provider whose submit first calls `die`. */
export function withFaultPoints(
  provider: Provider,
  points: readonly string[],
  die: (point: FaultPoint) => void,
): Provider {
  if (!points.includes('after-charge')) return provider;
  const faulty: Provider = {
    name: provider.name,
    type: provider.type,
    wantsCallback: provider.wantsCallback,
    submit: async (job) => {
      die('after-charge');
      return provider.submit(job);
    },
    status: (requestId, job, hint) => provider.status(requestId, job, hint),
    cancel: (requestId, job) => provider.cancel(requestId, job),
  };
  if (provider.release) faulty.release = (requestId) => provider.release!(requestId);
  if (provider.verifyCallback) faulty.verifyCallback = (delivery) => provider.verifyCallback!(delivery);
  return faulty;
}

/** Wraps every provider with the fault points set: the process logs the point and kills itself there. */
export function injectFaults(providers: Map<string, Provider>, points: readonly string[], logger: Logger): void {
  for (const [name, provider] of providers) {
    providers.set(
      name,
      withFaultPoints(provider, points, (point) => {
        logger.warn({ faultPoint: point }, 'fault injection: killing the process');
        process.kill(process.pid, 'SIGKILL');
      }),
    );
  }
}
