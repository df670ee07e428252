import client from 'prom-client';

/** Outcomes of one attempt, as recorded in job_attempts and counted per provider. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'timed_out' | 'cancelled' | 'abandoned' | 'skipped';

/** The jobs service's per-provider series (names and labels are what dashboards and alerts query). */
export interface ProviderMetrics {
  attempts: client.Counter<'provider' | 'outcome'>;
  failures: client.Counter<'provider' | 'stage'>;
  submitDuration: client.Histogram<'provider' | 'outcome'>;
  attemptDuration: client.Histogram<'provider' | 'outcome'>;
  circuitOpen: client.Gauge<'provider'>;
  /** Jobs failed (and refunded) as timed out: past JOB_TIMEOUT_MS, or their last route out of time. */
  timedOut: client.Counter;
  /** What attempts cost upstream, US dollars, by provider and catalog model (docs/usage.md). */
  upstreamCost: client.Counter<'provider' | 'model'>;
  /** Credits of completed jobs (charges kept), by the provider that made them and catalog model. */
  creditsCharged: client.Counter<'provider' | 'model'>;
}

/** Creates the series on `registry` (none: unregistered, for tests). */
export function createProviderMetrics(registry?: client.Registry): ProviderMetrics {
  const registers = registry ? [registry] : [];
  return {
    attempts: new client.Counter({
      name: 'jobs_provider_attempts_total',
      help: 'Attempts that ended, by provider and outcome',
      labelNames: ['provider', 'outcome'],
      registers,
    }),
    failures: new client.Counter({
      name: 'jobs_provider_failures_total',
      help: 'Provider failures by stage: submit (refused or unreachable), status (poll errors), reported (the upstream said failed), timeout',
      labelNames: ['provider', 'stage'],
      registers,
    }),
    submitDuration: new client.Histogram({
      name: 'jobs_provider_submit_duration_seconds',
      help: 'Latency of a submit to the provider, by outcome (accepted, refused)',
      labelNames: ['provider', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    attemptDuration: new client.Histogram({
      name: 'jobs_provider_attempt_duration_seconds',
      help: 'Time from an attempt start to its end, by provider and outcome',
      labelNames: ['provider', 'outcome'],
      buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1200],
      registers,
    }),
    circuitOpen: new client.Gauge({
      name: 'jobs_provider_circuit_open',
      help: '1 while the provider circuit breaker is open (this replica)',
      labelNames: ['provider'],
      registers,
    }),
    timedOut: new client.Counter({
      name: 'jobs_timed_out_total',
      help: 'Jobs failed and refunded as timed out (past JOB_TIMEOUT_MS, or their last route out of time)',
      registers,
    }),
    upstreamCost: new client.Counter({
      name: 'jobs_upstream_cost_usd_total',
      help: 'What provider attempts cost upstream in US dollars (reported by the upstream, metered, or from the route price), by provider and model',
      labelNames: ['provider', 'model'],
      registers,
    }),
    creditsCharged: new client.Counter({
      name: 'jobs_credits_charged_total',
      help: 'Credits charged for completed jobs (charges kept, refunds apart), by the provider that made them and model',
      labelNames: ['provider', 'model'],
      registers,
    }),
  };
}
