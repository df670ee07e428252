import type { Request, Response } from 'express';
import { requestId } from '@mf/http';
import type { OperationId } from '../operations/table';
import type { AuthContext } from '../core/auth/auth-context';
import * as editor from '../core/usecases/editor.usecase';
import * as exports from '../core/usecases/editor-exports.usecase';
import * as mediaIn from '../core/usecases/editor-media-in.usecase';
import { estimateCost } from '../core/usecases/estimate.usecase';
import { submitGeneration } from '../core/usecases/generate.usecase';
import { getAccount } from '../core/usecases/get-account.usecase';
import { cancelJob, getJob, listJobs } from '../core/usecases/jobs.usecase';
import { stageUpload } from '../core/uploads/stage-upload';
import { modelsJsonFor } from '../core/usecases/list-models.usecase';
import {
  getDeliveryOf,
  listDeliveriesOf,
  recoverDeliveriesOf,
  resendDeliveryOf,
  sendWebhookTestOf,
} from '../core/usecases/webhook-deliveries.usecase';
import {
  deleteWebhookOf,
  getWebhookOf,
  putWebhookOf,
  rotateWebhookSecretOf,
} from '../core/usecases/webhook-endpoint.usecase';
import { listEvents } from '../core/events/event-log.usecase';
import { triggerEvent } from '../core/events/trigger-event.usecase';
import { ledgerAskOf, ledgerCsvOf, ledgerPageOf } from '../core/reports/ledger.usecase';
import { usageReportOf, writeUsageCsv } from '../core/reports/usage.usecase';
import { forwardedIdempotency } from '../http/idempotency.middleware';
import type { ApiDeps } from './api.router';
import { eventStreams } from './sse/event-streams';
import { sendCsv, wantsCsv } from '../http/csv-reply';
import { acceptsEventStream, streamInstruct } from './sse/instruct-stream';

/** What a handler gets: the request, its caller, its path parameters and the options of its calls. */
export interface OperationCall {
  req: Request;
  res: Response;
  auth: AuthContext;
  /** A path parameter (express types them string | string[] for wildcards, which no operation uses). */
  param(name: string): string;
  call: { correlationId: string };
}

/** The handler answered by itself (an event stream): the router sends nothing. */
export const ANSWERED = Symbol('answered');

/**
 * The reply body of an operation (sent as JSON with the table's status), prebuilt JSON bytes, or
 * ANSWERED. Handlers are thin: they map the request onto the operation's use case.
 */
export type OperationHandler = (c: OperationCall) => unknown;

/** What the handlers' use cases need. */
export type OperationDeps = Pick<
  ApiDeps,
  | 'bus'
  | 'falEndpoints'
  | 'submitTimeoutMs'
  | 'instructTimeoutMs'
  | 'exportTimeoutMs'
  | 'importTimeoutMs'
  | 'publicBaseUrl'
  | 'webhookTestTimeoutMs'
  | 'streams'
  | 'logger'
  | 'storage'
  | 'uploadMaxBytes'
>;

/** The use case of every operation of the table, by id (the type makes it complete). */
export function operationHandlers(deps: OperationDeps): Record<OperationId, OperationHandler> {
  const { bus } = deps;
  const modelsJson = modelsJsonFor(deps.falEndpoints);
  const submit = (type: 'video' | 'image') => (c: OperationCall) =>
    submitGeneration(bus, c.auth, type, c.req.body, {
      submitTimeoutMs: deps.submitTimeoutMs,
      correlationId: c.call.correlationId,
      idempotency: forwardedIdempotency(c.res),
    });
  const webhookTest = {
    publicBaseUrl: deps.publicBaseUrl,
    falEndpoints: deps.falEndpoints,
    timeoutMs: deps.webhookTestTimeoutMs,
  };
  const streams = eventStreams(bus, deps.streams, deps.logger);
  return {
    // The catalog's bytes are made once, not serialised per request.
    listModels: () => modelsJson,
    getAccount: (c) => getAccount(bus, c.auth, c.call.correlationId),
    generateVideo: submit('video'),
    generateImage: submit('image'),
    listJobs: (c) => listJobs(bus, c.auth, c.req.query, c.call),
    getJob: (c) => getJob(bus, c.auth, c.param('id'), c.call),
    cancelJob: (c) => cancelJob(bus, c.auth, c.param('id'), c.call),
    createProject: (c) => editor.createProject(bus, c.auth, c.req.body, c.call),
    listProjects: (c) => editor.listProjects(bus, c.auth, c.call),
    getProjectState: (c) => editor.getProjectState(bus, c.auth, c.param('id'), c.req.query, c.call),
    renameProject: (c) => editor.renameProject(bus, c.auth, c.param('id'), c.req.body, c.call),
    instruct: async (c) => {
      if (!acceptsEventStream(c.req))
        return editor.instruct(bus, c.auth, c.param('id'), c.req.body, {
          ...c.call,
          timeoutMs: deps.instructTimeoutMs,
        });
      await streamInstruct(
        { bus, streams: deps.streams, logger: deps.logger, timeoutMs: deps.instructTimeoutMs },
        { req: c.req, res: c.res, auth: c.auth, projectId: c.param('id'), correlationId: c.call.correlationId },
      );
      return ANSWERED;
    },
    exportVideo: async (c) => {
      if (!exports.prefersAsync(c.req.get('prefer')))
        return editor.exportVideo(bus, c.auth, c.param('id'), c.req.body, {
          ...c.call,
          timeoutMs: deps.exportTimeoutMs,
        });
      const accepted = await exports.startExport(bus, c.auth, c.param('id'), c.req.body, c.call);
      c.res
        .status(202)
        .set('Preference-Applied', 'respond-async')
        .location(`/api/v1/media-studio/projects/${c.param('id')}/exports/${accepted.export_id}`)
        .json(accepted);
      return ANSWERED;
    },
    getExport: (c) => exports.getExport(bus, c.auth, c.param('id'), c.param('exportId'), c.call),
    listExports: (c) => exports.listExports(bus, c.auth, c.param('id'), c.call),
    createVideo: (c) => editor.createVideo(bus, c.auth, c.param('id'), c.req.body, c.call),
    renameVideo: (c) => editor.renameVideo(bus, c.auth, c.param('id'), c.param('videoId'), c.req.body, c.call),
    importAsset: (c) =>
      c.req.is('multipart/form-data')
        ? mediaIn.uploadAsset(bus, c.auth, c.param('id'), () => stageUpload(c.req, deps.storage, deps.uploadMaxBytes), {
            ...c.call,
            timeoutMs: deps.importTimeoutMs,
          })
        : mediaIn.importAsset(bus, c.auth, c.param('id'), c.req.body, { ...c.call, timeoutMs: deps.importTimeoutMs }),
    deleteAsset: (c) => editor.deleteAsset(bus, c.auth, c.param('id'), c.param('assetId'), c.call),
    addClip: (c) => editor.addClip(bus, c.auth, c.param('id'), c.req.body, c.call),
    moveClip: (c) => editor.moveClip(bus, c.auth, c.param('id'), c.param('clipId'), c.req.body, c.call),
    removeClip: (c) => editor.removeClip(bus, c.auth, c.param('id'), c.param('clipId'), c.call),
    updateContext: (c) => editor.updateContext(bus, c.auth, c.param('id'), c.req.body, c.call),
    setAspectRatio: (c) => editor.setAspectRatio(bus, c.auth, c.param('id'), c.req.body, c.call),
    // 201 on creation, 200 on a change: the status is the use case's, so the handler answers.
    setWebhook: async (c) => {
      const { status, body } = await putWebhookOf(bus, c.auth, c.req.body, {
        ...c.call,
        timeoutMs: deps.webhookTestTimeoutMs,
      });
      c.res.status(status).json(body);
      return ANSWERED;
    },
    getWebhook: (c) => getWebhookOf(bus, c.auth, c.call),
    deleteWebhook: (c) => deleteWebhookOf(bus, c.auth, c.call),
    rotateWebhookSecret: (c) => rotateWebhookSecretOf(bus, c.auth, c.req.body, c.call),
    listWebhookDeliveries: (c) => listDeliveriesOf(bus, c.auth, c.req.query, c.call),
    getWebhookDelivery: (c) => getDeliveryOf(bus, c.auth, c.param('id'), c.call),
    resendWebhookDelivery: (c) =>
      resendDeliveryOf(bus, c.auth, c.param('id'), { ...c.call, timeoutMs: deps.webhookTestTimeoutMs }),
    recoverWebhookDeliveries: (c) => recoverDeliveriesOf(bus, c.auth, c.req.body, c.call),
    sendWebhookTest: (c) => sendWebhookTestOf(bus, c.auth, c.req.body, webhookTest, c.call),
    estimateCost: (c) => estimateCost(bus, c.auth, c.req.body, c.call.correlationId),
    listEvents: (c) => listEvents(bus, c.auth, c.req.query, c.call),
    triggerEvent: (c) => triggerEvent(bus, c.auth, c.req.body, webhookTest, c.call),
    streamEvents: async (c) => {
      await streams.open(c.req, c.res);
      return ANSWERED;
    },
    streamJobEvents: async (c) => {
      await streams.open(c.req, c.res, c.param('id'));
      return ANSWERED;
    },
    getUsage: async (c) => {
      const { report, format } = await usageReportOf(bus, c.auth, c.req.query, c.call);
      if (!wantsCsv(c.req, format)) return report;
      const range = `${report.from.slice(0, 10)}_${report.to.slice(0, 10)}`;
      await sendCsv(c.res, `usage_${range}.csv`, (sink) => writeUsageCsv(report, sink));
      return ANSWERED;
    },
    listLedger: async (c) => {
      const ask = ledgerAskOf(c.auth, c.req.query);
      if (!wantsCsv(c.req, ask.format)) return ledgerPageOf(bus, c.auth, ask, c.call);
      await sendCsv(c.res, 'ledger.csv', await ledgerCsvOf(bus, c.auth, ask, c.call));
      return ANSWERED;
    },
  };
}

/** The handler's call: the request id as correlation id, path parameters as strings. */
export function operationCall(req: Request, res: Response, auth: AuthContext): OperationCall {
  return {
    req,
    res,
    auth,
    param: (name) => {
      const v = req.params[name];
      return typeof v === 'string' ? v : '';
    },
    call: { correlationId: requestId(req) },
  };
}
