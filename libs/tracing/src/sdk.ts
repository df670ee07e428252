import http from 'node:http';
import https from 'node:https';
import { context, trace } from '@opentelemetry/api';
import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import express from 'express';
import pg from 'pg';
import expressPackage from 'express/package.json';
import pgPackage from 'pg/package.json';
import type { Tracing } from './index';
import { jobIdOf } from './job-id';
import { amqplibFiles, patchLoaded } from './loaded-modules';

/** The span attribute that names the job a message is about. */
const JOB_ID = 'mediaforge.job_id';

/** Requests that are not work: probes and scrapes every few seconds would drown the traces. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts the OpenTelemetry Node SDK for traces, configured by the standard OTEL_* variables
 * (exporter protocol, sampler, resource attributes, batch sizes), with spans for incoming and
 * outgoing HTTP, express routes, Postgres queries made within a traced operation, and every
 * publish and consume on the broker (W3C trace context in the AMQP message headers).
 * Metrics stay Prometheus' (/metrics) and logs stay JSON lines on stdout; OTLP carries traces.
 */
export function startSdk(serviceName: string): Tracing {
  const instrumentations = {
    http: new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
    }),
    express: new ExpressInstrumentation(),
    // Only inside a traced operation: the background loops' polling queries would each be a trace.
    pg: new PgInstrumentation({ requireParentSpan: true }),
    // A job's submit and its completion are separate traces: the job id on their messages joins them.
    amqplib: new AmqplibInstrumentation({
      publishHook: (span, { content }) => {
        const jobId = jobIdOf(content);
        if (jobId) span.setAttribute(JOB_ID, jobId);
      },
      consumeHook: (span, { msg }) => {
        const jobId = jobIdOf(msg.content);
        if (jobId) span.setAttribute(JOB_ID, jobId);
      },
    }),
  };
  const sdk = new NodeSDK({
    serviceName,
    instrumentations: Object.values(instrumentations),
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  patchLoaded(instrumentations.http, { http: { exports: http }, https: { exports: https } });
  patchLoaded(instrumentations.express, { express: { exports: express, version: expressPackage.version } });
  patchLoaded(instrumentations.pg, { pg: { exports: pg, version: pgPackage.version } });
  patchLoaded(instrumentations.amqplib, amqplibFiles());
  return {
    logFields: (): Record<string, string> => {
      const span = trace.getSpan(context.active());
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    shutdown: () => sdk.shutdown(),
  };
}
