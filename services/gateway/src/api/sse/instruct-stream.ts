import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Bus } from '@mf/bus';
import type { AgentEvent, Job } from '@mf/contracts';
import { AppError, httpStatusOf, isAppError } from '@mf/errors';
import type { Logger } from '@mf/logger';
import type { EditorCaller } from '../../core/auth/auth-context';
import { call, instructRequest } from '../../core/usecases/editor.usecase';
import { getJobOf } from '../../core/usecases/jobs.usecase';
import { SseResponse } from './sse-response';
import type { Streams } from './streams';

export { acceptsEventStream } from '../../http/accepts-event-stream';

/** What a streamed turn is given: the request, its caller, and the project. */
export interface InstructStreamCall {
  req: Request;
  res: Response;
  auth: EditorCaller;
  projectId: string;
  correlationId: string;
}

/**
 * POST .../instruct with `Accept: text/event-stream`: the same turn, streamed. The checks (403, 404,
 * 400) answer as JSON before the stream opens; then each agent event as the editor records it
 * (`step`, `tool_call`, `tool_result`, `tool_error`, `message`, `media_generation`, `error`), each
 * generation the turn starts (`generation` with its `job_id`) and that job's progress
 * (`generation` with `status` and `progress`), and last `reply` (the JSON reply's body) or `error`
 * (`{status, error, ...}`: what the JSON call would have answered).
 */
export async function streamInstruct(
  deps: { bus: Bus; streams: Streams; logger: Logger; timeoutMs?: number },
  c: InstructStreamCall,
): Promise<void> {
  const request = instructRequest(c.auth, c.projectId, c.req.body);
  const streamId = randomUUID();
  const sse = new SseResponse(c.res, deps.streams.options);
  let streamed = 0;
  const generations = new GenerationProgress((job) =>
    sse.sendNamed('generation', { job_id: job.job_id, status: job.status, progress: job.progress }),
  );
  const stopTurn = deps.streams.turns.listen(streamId, (event: AgentEvent) => {
    if (event.type !== 'generation') streamed++;
    sse.sendNamed(event.type, event);
    if (event.type === 'generation' && typeof event.job_id === 'string') generations.follow(event.job_id);
  });
  // Subscribed before the turn starts: a job's events may come before the turn names the job.
  const stopJobs = deps.streams.hub.subscribe(c.auth.userId, (e) => {
    if (e.jobId) generations.seen(e.data as Job);
  });
  try {
    const reply = await call(
      deps.bus,
      'instruct',
      { ...request, stream_id: streamId },
      { correlationId: c.correlationId, timeoutMs: deps.timeoutMs },
    );
    stopTurn();
    // The reply and the last events travel apart: any event not streamed yet goes before the reply,
    // and a generation whose end has not arrived yet is read once.
    for (const event of reply.agent_events.slice(streamed)) sse.sendNamed(event.type, event);
    for (const jobId of generations.unfinished())
      await getJobOf(deps.bus, c.auth.userId, jobId, { correlationId: c.correlationId })
        .then((job) => generations.seen(job))
        .catch((err: unknown) => deps.logger.warn({ err, jobId }, 'streamed instruct: job not read'));
    sse.sendNamed('reply', reply);
  } catch (err) {
    const failure = isAppError(err) ? err : AppError.internal();
    if (!isAppError(err)) deps.logger.error({ err, requestId: c.correlationId }, 'streamed instruct failed');
    sse.sendNamed('error', { status: httpStatusOf(failure.kind), ...failure.body });
  } finally {
    stopTurn();
    stopJobs();
    sse.end();
  }
}

/** How many job states a streamed turn keeps before the turn names its job (a turn makes one). */
const EARLY_JOBS = 50;

/**
 * The generations of one streamed turn: each state of a followed job is passed on once and in
 * order (percent rising); states of jobs not named yet are kept (the last of each) until they are.
 */
class GenerationProgress {
  private readonly followed = new Map<string, Job | null>();
  private readonly early = new Map<string, Job>();

  constructor(private readonly send: (job: Job) => void) {}

  follow(jobId: string): void {
    if (this.followed.has(jobId)) return;
    this.followed.set(jobId, null);
    const before = this.early.get(jobId);
    this.early.delete(jobId);
    if (before) this.seen(before);
  }

  seen(job: Job): void {
    if (!this.followed.has(job.job_id)) {
      this.early.delete(job.job_id);
      this.early.set(job.job_id, job);
      if (this.early.size > EARLY_JOBS) this.early.delete(this.early.keys().next().value as string);
      return;
    }
    const last = this.followed.get(job.job_id);
    if (
      last &&
      (last.status !== 'processing' || (job.status === 'processing' && (job.progress ?? 0) <= (last.progress ?? 0)))
    )
      return;
    this.followed.set(job.job_id, job);
    this.send(job);
  }

  /** Followed jobs whose end was not sent. */
  unfinished(): string[] {
    return [...this.followed].filter(([, job]) => !job || job.status === 'processing').map(([id]) => id);
  }
}
