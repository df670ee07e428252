export { Bus } from './bus';
export { eventHandler } from './types';
export { jobEndsConsumer, type JobEndsSpec } from './job-ends';
export type {
  BusOptions,
  RpcContext,
  RpcHandlers,
  HandlerOutcome,
  ConsumerContext,
  HeldMessage,
  EventHandler,
  AnyEventHandler,
  ConsumerSpec,
} from './types';
export { BusUnavailableError, RpcTimeoutError } from './errors';
export { backoffDelay } from './backoff';
export type { BroadcastHandler, BroadcastSpec } from './broadcast';
