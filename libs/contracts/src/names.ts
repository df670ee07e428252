/**
 * Every exchange, queue and routing key of the fleet, written once.
 * DO NOT RENAME: these names live in deployed brokers; a rename strands messages in old queues.
 */
export const EXCHANGES = {
  /** Topic exchange carrying domain events (job.completed, ...). */
  events: 'events',
} as const;

export const QUEUES = {
  billingRpc: 'billing.rpc',
  /** Per-key spend and concurrency limits (set, read). */
  billingKeyLimitsRpc: 'billing.key-limits.rpc',
  /** Usage reports: reads over ranges of the ledger, kept off the money path's queue. */
  billingReportsRpc: 'billing.reports.rpc',
  jobsRpc: 'jobs.rpc',
  /** Reports over ranges of attempts (upstream costs), kept off the submit path's queue. */
  jobsReportsRpc: 'jobs.reports.rpc',
  /** jobs' queue of provider callbacks (providerCallbackReceived): each makes its job be polled now. */
  jobsProviderCallbacks: 'jobs.provider-callback.poll',
  editorRpc: 'editor.rpc',
  exportsRpc: 'exports.rpc',
  /** The dispatcher's reads, clears and recover: database work only, never an outbound call. */
  webhooksRpc: 'webhooks.rpc',
  /**
   * The dispatcher's calls that reach out to a customer's side while the caller waits (resolving a
   * URL being saved, test events, resends): their own queue, so a slow receiver or name server never
   * holds what reads are answered with.
   */
  webhooksOutboundRpc: 'webhooks.outbound.rpc',
  /** webhook-dispatcher's work queue for job events. */
  webhooksJobEvents: 'webhooks.job-event.deliver',
  /** webhook-dispatcher's queue of resend requests: each is moved into its endpoint's lane (docs/webhooks.md). */
  webhooksResends: 'webhooks.delivery.resend',
  /** billing's queue of job ends (frees a key's concurrent-jobs slot). */
  billingJobEnds: 'billing.job-event.release',
} as const;

export const ROUTING_KEYS = {
  jobCompleted: 'job.completed',
  jobFailed: 'job.failed',
  jobCancelled: 'job.cancelled',
  /** The job was accepted by an upstream (the first event of every job). Streams and the event log only. */
  jobProcessing: 'job.processing',
  /** The job's progress changed (at most once a second per job). Streams and the event log only. */
  jobProgress: 'job.progress',
  /** Binding pattern for every job event. */
  jobAll: 'job.*',
  /** A background export rendered further (at most once a second). Streams and the event log only. */
  exportProgress: 'export.progress',
  exportCompleted: 'export.completed',
  exportFailed: 'export.failed',
  /** Binding pattern for every export event of the log. */
  exportAll: 'export.*',
  /**
   * export-renderer's percent of a render in progress, for the editor replica waiting on it (which
   * records it as export.progress): transient, never logged.
   */
  renderProgress: 'exports.render.progress',
  /** An event of a streamed instruct turn, for the gateway replica holding the stream: transient, never logged. */
  turnEvent: 'editor.turn.event',
  /** The gateway (or its admin CLI) revoked an API key: every gateway replica drops it from its key cache. */
  apiKeyRevoked: 'gateway.api-key.revoked',
  /** The dispatcher asks itself to send an attempt's event again (one message per recovered event). */
  webhookResendRequested: 'webhooks.delivery.resend-requested',
  /** The gateway received an upstream provider's callback for a job: jobs polls it now. */
  providerCallbackReceived: 'jobs.provider-callback.received',
} as const;

/**
 * The job events that end a job: what billing (slot release) and the dispatcher (webhooks) bind
 * to. Their queues were bound to every job event once (`jobAll`): a submit's job.processing cost
 * two durable enqueues, two deliveries and two acks for nothing (the submit bench, bench/README.md).
 */
export const JOB_END_ROUTING_KEYS = [
  ROUTING_KEYS.jobCompleted,
  ROUTING_KEYS.jobFailed,
  ROUTING_KEYS.jobCancelled,
] as const;
export type JobEndEvent = (typeof JOB_END_ROUTING_KEYS)[number];

/** Dead-letter exchange of a service: its poison messages land in `<queue>.dlq`. */
export function deadLetterExchange(service: string): string {
  return `${service}.dlx`;
}
export function deadLetterQueue(queue: string): string {
  return `${queue}.dlq`;
}
/** Per-delay TTL queue that dead-letters back into `queue` (broker-held retry schedule). */
export function delayQueue(queue: string, delayMs: number): string {
  return `${queue}.delay.${delayMs}ms`;
}
