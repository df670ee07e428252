import {
  JOB_END_ROUTING_KEYS,
  jobEvents,
  ROUTING_KEYS,
  type EventDef,
  type JobEndEvent,
  type JobEventPayload,
} from '@mf/contracts';
import { eventHandler, type ConsumerContext, type ConsumerSpec, type HandlerOutcome } from './types';

export interface JobEndsSpec {
  queue: string;
  /** Called for each end (completed, failed or cancelled), with which one it is. */
  handle: (payload: JobEventPayload, ctx: ConsumerContext, event: JobEndEvent) => Promise<HandlerOutcome>;
  prefetch?: number;
  retryDelaysMs?: number[];
}

const ignore = (def: EventDef<JobEventPayload>) => eventHandler(def, () => Promise.resolve('ack' as const));

/**
 * A queue of the job ends only. Such queues were once bound to every job event (`job.*`): that
 * binding is removed at attach, and a processing or progress event still queued from then is acked
 * unread.
 */
export function jobEndsConsumer(spec: JobEndsSpec): ConsumerSpec {
  const end = (def: EventDef<JobEventPayload>) =>
    eventHandler(def, (payload, ctx) => spec.handle(payload, ctx, def.routingKey as JobEndEvent));
  return {
    queue: spec.queue,
    bindings: [...JOB_END_ROUTING_KEYS],
    unbind: [ROUTING_KEYS.jobAll],
    handlers: {
      [jobEvents.completed.routingKey]: end(jobEvents.completed),
      [jobEvents.failed.routingKey]: end(jobEvents.failed),
      [jobEvents.cancelled.routingKey]: end(jobEvents.cancelled),
      [jobEvents.processing.routingKey]: ignore(jobEvents.processing),
      [jobEvents.progress.routingKey]: ignore(jobEvents.progress),
    },
    prefetch: spec.prefetch,
    retryDelaysMs: spec.retryDelaysMs,
  };
}
