import Joi from 'joi';
import { generationAccepted, jobView, type GenerationAccepted, type Job } from '@mf/contracts';
import { generationType, submitGeneration } from '../../core/usecases/generate.usecase';
import { getJob } from '../../core/usecases/jobs.usecase';
import { AppError } from '@mf/errors';
import type { ProgressStep } from '../tool-progress';
import { followUntilEnded } from './follow-until';
import { opts, type ToolContext } from './tool';

export const WAIT_NOT_BOOLEAN = 'wait must be a boolean';

/** The longest generate_media waits for its job (a long video takes minutes); then it answers the job as it is. */
export const GENERATION_WAIT_MS = 15 * 60_000;

/** generate_media's result: the submit's answer, and with `wait` the job at its end. */
export const generateMediaResult = generationAccepted
  .keys({
    job: jobView
      .optional()
      .description(
        'With wait (or called as a task): the job once it ended (completed with result URLs, failed or cancelled), or as it is after 15 minutes.',
      ),
  })
  .id('GenerateMediaResult');

class StillProcessing extends Error {}

/**
 * Submits a generation; with `wait`, follows its job (live events, reads between them) until it
 * ends, each percent reported through `step`. Charged once, as the plain submit.
 */
export async function submitMaybeWaiting(
  ctx: ToolContext,
  args: Record<string, unknown>,
  step?: ProgressStep,
): Promise<GenerationAccepted & { job?: Job }> {
  const { type, wait, ...body } = args;
  // Checked before the submit: a mistyped wait must not start (and charge) a job that is not waited for.
  if (wait !== undefined && wait !== null && typeof wait !== 'boolean') throw AppError.badRequest(WAIT_NOT_BOOLEAN);
  const accepted = await submitGeneration(ctx.bus, ctx.auth, generationType(type), body, {
    submitTimeoutMs: ctx.submitTimeoutMs,
    correlationId: ctx.correlationId,
  });
  const id = accepted.job_id;
  // As a task: recorded so that cancelling the task cancels (and refunds) the job.
  await ctx.task?.record({ job_id: id });
  if (wait !== true) return accepted;
  step?.(`${id} submitted`, 0);
  let last = 0;
  const read = () => getJob(ctx.bus, ctx.auth, id, opts(ctx));
  const job = await followUntilEnded<Job>(ctx, {
    fromEvent: (e) => (e.jobId === id ? (e.data as Job) : undefined),
    read,
    ended: (j) => j.status !== 'processing',
    onState: (j) => {
      if (j.progress === null || j.progress <= last) return;
      last = j.progress;
      step?.(`generating ${id}, ${j.progress}%`, j.progress);
    },
    timeoutMs: GENERATION_WAIT_MS,
    timedOut: () => new StillProcessing(),
  }).catch((err: unknown) => {
    if (err instanceof StillProcessing) return read();
    throw err;
  });
  return { ...accepted, job };
}

export const waitArg = Joi.boolean().description(
  'true: answer when the job has ended (job: the final job with its result URLs) instead of at once; up to 15 minutes. Send a progressToken for its percent, or call the tool as a task (a task waits by default).',
);
