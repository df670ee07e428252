import type { Request, Response } from 'express';
import type { Bus } from '@mf/bus';
import { requestId } from '@mf/http';
import type { Logger } from '@mf/logger';
import { readLog, resumePoint } from '../../core/events/event-log.usecase';
import { runStream } from '../../core/events/stream-session';
import { getJob } from '../../core/usecases/jobs.usecase';
import { authOf } from '../../http/auth.middleware';
import { rateLimitKey } from '../../http/rate-limit.middleware';
import { SseResponse } from './sse-response';
import type { Streams } from './streams';

/**
 * The event streams of the per-user event log (docs/events.md): GET /events/stream (every job of
 * the user, live) and GET /jobs/:id/events (one job, ending after its terminal event). Streams are
 * authenticated and rate-limited as one request when opened, like any other.
 */
export function eventStreams(
  bus: Bus,
  streams: Streams,
  logger: Logger,
): { open(req: Request, res: Response, jobId?: string): Promise<void> } {
  async function openStream(req: Request, res: Response, jobId?: string): Promise<void> {
    const auth = authOf(req);
    const opts = { correlationId: requestId(req) };
    // Everything that can refuse (400, 404, 429) before the stream's headers go out.
    const after = resumePoint(req.header('last-event-id'));
    const job = jobId === undefined ? undefined : await getJob(bus, auth, jobId, opts);
    const release = await streams.limits.acquire(rateLimitKey(auth.apiKeyId));
    // The client may have gone while the slot was taken: nothing would ever close this stream.
    if (req.socket.destroyed) return release();
    const sse = new SseResponse(res, streams.options);
    sse.onClose(release);
    streams.track(sse);
    try {
      const stop = await runStream(
        { hub: streams.hub, readLog: (q) => readLog(bus, { userId: auth.userId, ...q }, opts) },
        { userId: auth.userId, job, after },
        sse,
      );
      sse.onClose(stop);
    } catch (err) {
      // The headers are out: the client sees the stream close and resumes with Last-Event-ID.
      logger.warn({ err: (err as Error).message, requestId: opts.correlationId }, 'event stream failed to start');
      sse.drop();
    }
  }
  return { open: openStream };
}
