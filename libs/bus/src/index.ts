export { Bus } from './bus';
export type { BusOptions, RpcContext, RpcHandlers, HandlerOutcome, ConsumerContext, EventHandler, ConsumerSpec } from './bus';
export { BusUnavailableError, RpcTimeoutError } from './errors';
export { backoffDelay } from './backoff';
