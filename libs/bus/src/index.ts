export { Bus, eventHandler } from './bus';
export type { BusOptions, RpcContext, RpcHandlers, HandlerOutcome, ConsumerContext, EventHandler, AnyEventHandler, ConsumerSpec } from './bus';
export { BusUnavailableError, RpcTimeoutError } from './errors';
export { backoffDelay } from './backoff';
