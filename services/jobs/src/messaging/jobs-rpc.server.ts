import type { Bus } from '@mf/bus';
import { jobsReportsRpc, jobsRpc } from '@mf/contracts';
import type { CallbackPolls } from '../usecases/callback-poll.usecase';
import type { JobsContext } from '../usecases/context';
import { cancelJob } from '../usecases/cancel-job.usecase';
import { listEvents, recordTestEvent } from '../usecases/event-log.usecase';
import { appendExportEvent } from '../usecases/export-events.usecase';
import {
  getJob,
  getJobs,
  getJobAttempts,
  getJobResult,
  listJobs,
  providerCallback,
} from '../usecases/read-jobs.usecase';
import { submitJob } from '../usecases/submit-job.usecase';
import { upstreamCosts } from '../usecases/upstream-costs.usecase';

/** Binds the jobs RPC methods to their use cases. */
export function serveJobsRpc(
  bus: Bus,
  ctx: JobsContext,
  polls: Pick<CallbackPolls, 'pollNow' | 'pollIfCurrent'>,
): Promise<void> {
  return bus.serveRpc(jobsRpc, {
    submit: (req) => submitJob(ctx, req),
    get: (req) => getJob(ctx, req),
    getMany: (req) => getJobs(ctx, req),
    cancel: (req) => cancelJob(ctx, req),
    getResult: (req) => getJobResult(ctx, req),
    list: (req) => listJobs(ctx, req),
    // Callbacks come on their own queue (provider-callbacks.consumer.ts); this method stays for a
    // gateway that still calls it during a rolling deploy.
    providerCallback: (req) =>
      providerCallback(
        ctx,
        req,
        (jobId, callback) => polls.pollNow(jobId, callback),
        (jobId, attempt, providers, callback) => polls.pollIfCurrent(jobId, attempt, providers, callback),
      ),
    attempts: (req) => getJobAttempts(ctx, req),
    events: (req) => listEvents(ctx, req),
    appendExportEvent: (req) => appendExportEvent(ctx, req),
    recordTestEvent: (req) => recordTestEvent(ctx, req),
  });
}

/** Binds the reports (a queue of their own: range reads never wait behind submits). */
export function serveJobsReportsRpc(bus: Bus, ctx: JobsContext): Promise<void> {
  return bus.serveRpc(jobsReportsRpc, { upstreamCosts: (req) => upstreamCosts(ctx, req) }, { prefetch: 2 });
}
