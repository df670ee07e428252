/**
 * OpenTelemetry tracing of a service, on only when an OTLP endpoint is configured. Off, nothing of
 * the SDK is loaded: the SDK and its instrumentations are imported here lazily (and in the
 * production build they stay outside the bundle, in dist/node_modules: scripts/build/services.ts).
 */

/** The standard variables that decide whether a service traces (validated in @mf/config). */
export interface TracingSettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
  OTEL_SDK_DISABLED?: boolean;
}

/** A running tracer: its fields for log lines, and a shutdown that sends what is still buffered. */
export interface Tracing {
  /** `trace_id` and `span_id` of the active span (none outside one), for every log line (pino's mixin). */
  logFields: () => Record<string, string>;
  shutdown: () => Promise<void>;
}

export function tracingEnabled(settings: TracingSettings): boolean {
  if (settings.OTEL_SDK_DISABLED) return false;
  return Boolean(settings.OTEL_EXPORTER_OTLP_ENDPOINT || settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Starts the SDK when tracing is configured; null (and nothing loaded) otherwise. */
export async function startTracing(service: string, settings: TracingSettings): Promise<Tracing | null> {
  if (!tracingEnabled(settings)) return null;
  const { startSdk } = await import('./sdk');
  return startSdk(settings.OTEL_SERVICE_NAME ?? service);
}
