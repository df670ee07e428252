import { eventHandler, type Bus } from '@mf/bus';
import { providerCallbackReceived, QUEUES } from '@mf/contracts';
import type { CallbackPolls } from '../usecases/callback-poll.usecase';
import type { JobsContext } from '../usecases/context';
import { providerCallback } from '../usecases/read-jobs.usecase';

/**
 * Broker-held retries of a callback whose handling failed (the database away): a nudge that still
 * finds nothing to do after these is left to the poller.
 */
const RETRY_DELAYS_MS = [1_000, 10_000, 60_000];

/**
 * Consumes the provider callbacks the gateway hands over: each is acked once its job is claimed and
 * its advance started (or it was found to have nothing to poll). Unacked, it is delivered again
 * (jobs died before the claim); a callback has no deadline, however long it waited in the queue.
 */
export function consumeProviderCallbacks(
  bus: Bus,
  ctx: JobsContext,
  polls: Pick<CallbackPolls, 'pollNow' | 'pollIfCurrent'>,
  prefetch: number,
): Promise<void> {
  return bus.consume({
    queue: QUEUES.jobsProviderCallbacks,
    bindings: [providerCallbackReceived.routingKey],
    handlers: {
      [providerCallbackReceived.routingKey]: eventHandler(providerCallbackReceived, async (req) => {
        await providerCallback(
          ctx,
          req,
          (jobId, callback) => polls.pollNow(jobId, callback),
          (jobId, attempt, providers, callback) => polls.pollIfCurrent(jobId, attempt, providers, callback),
        );
        return 'ack';
      }),
    },
    prefetch,
    retryDelaysMs: RETRY_DELAYS_MS,
  });
}
