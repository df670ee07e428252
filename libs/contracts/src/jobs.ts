import Joi from 'joi';
import { imageParams, videoParams } from './api/generation';
import type * as T from './generated/types';
import { eventDef, type EventDef } from './event-def';
import { QUEUES, ROUTING_KEYS } from './names';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';
import { listEventsRequest, recordTestEventRequest } from './event-log-request';
import { appendExportEventRequest } from './export-event-request';
import { named } from './schema/rules';
import { upstreamCostsRequest } from './operator-report';

/**
 * The jobs service's messages and the Job object (contract section 2, plus documented additions).
 * Types: generated/types.ts, from these schemas.
 */

export const JOB_STATUSES = ['processing', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const JOB_TYPES = ['video', 'image'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/**
 * Who made a job: `api` (a key, over REST or MCP), `editor` (the editor agent, for a project) or
 * `dashboard` (the signed-in user's playground). Editor jobs carry their project id.
 */
export const JOB_SOURCES = ['api', 'editor', 'dashboard'] as const;
export type JobSource = (typeof JOB_SOURCES)[number];

/** Who cancelled a job: its owner (DELETE /jobs/:id, the dashboard) or the editor (a generation that took too long). */
export const CANCELLED_BY = ['user', 'editor'] as const;
export type CancelledBy = (typeof CANCELLED_BY)[number];

export const JOB_ID = /^job_[A-Za-z0-9]{1,64}$/;
const userId = Joi.number().integer().min(1).required();
const jobId = Joi.string().pattern(JOB_ID).required();
const projectId = Joi.string().pattern(/^prj_[A-Za-z0-9]{1,64}$/);
const timestamp = Joi.string().isoDate().description('ISO 8601, UTC.');
const jobType = Joi.string().valid(...JOB_TYPES);

/** video jobs: { video: <url> }; image jobs: { images: [<url>, ...] }; null until completed. */
export const jobResult = named(
  Joi.alternatives(
    Joi.object({ video: Joi.string().required() }),
    Joi.object({ images: Joi.array().items(Joi.string()).required() }),
  )
    .allow(null)
    .description('Video job: { video: <url> }; image job: { images: [<url>, ...] }; null otherwise.'),
  'JobResult',
);

/** The accepted input of a job, as used: every default applied, the seed resolved. */
export const jobInput = named(Joi.alternatives(videoParams, imageParams), 'JobInput');

/**
 * The contract's Job object (model is the display name here), plus three additions: the accepted
 * `input`, the `source` and, for editor jobs, the `project_id` (docs/api-behaviour.md "Jobs").
 */
export const jobView = named(
  Joi.object({
    job_id: Joi.string().required(),
    status: Joi.string()
      .valid(...JOB_STATUSES)
      .required(),
    model: Joi.string().required().description('Display name of the model.'),
    type: jobType.required(),
    credits_consumed: Joi.number().integer().required(),
    created_at: timestamp.required(),
    completed_at: timestamp.allow(null).required().description('null while processing.'),
    result: jobResult.required(),
    error: Joi.string().allow(null).required().description('Failure message when status is failed.'),
    input: jobInput
      .required()
      .description(
        'The accepted request as it ran: every default applied, and the seed used (send it again to reproduce the job).',
      ),
    source: Joi.string()
      .valid(...JOB_SOURCES)
      .required()
      .description(
        '`api`: a request with an API key (REST or MCP); `editor`: a generation of the video editor for `project_id`; `dashboard`: the dashboard’s playground.',
      ),
    project_id: Joi.string()
      .allow(null)
      .required()
      .description('The editor project of an `editor` job; null otherwise.'),
    progress: Joi.number()
      .integer()
      .min(0)
      .max(100)
      .allow(null)
      .required()
      .description(
        'Percent done: 0-100 while processing when the provider can tell, null when it cannot (and for failed or cancelled jobs), 100 when completed.',
      ),
    queue_position: Joi.number()
      .integer()
      .min(0)
      .description(
        "The job's place in the upstream's queue before it starts, when the provider tells; absent otherwise.",
      ),
  }),
  'Job',
);

/**
 * A client's Idempotency-Key, digested by the gateway (with the request's fingerprint): a submit
 * whose key matches a job of the same user made within `window_hours` returns that job instead of
 * charging again, so a retry after an unknown outcome (a 503) is safe.
 */
export const submitIdempotency = named(
  Joi.object({
    key: Joi.string()
      .pattern(/^[0-9a-f]{64}$/)
      .required(),
    window_hours: Joi.number().integer().min(1).max(720).required(),
  }),
  'SubmitIdempotency',
);

const submitOwner = {
  user_id: userId,
  api_key_id: Joi.number()
    .integer()
    .min(1)
    .allow(null)
    .required()
    .description(
      "The key it was submitted with; null for a job of the dashboard session (the playground's, or the studio's editor turns).",
    ),
  idempotency: submitIdempotency,
  source: Joi.string()
    .valid(...JOB_SOURCES)
    .description('Default `api`. `editor` requires project_id; `api` requires an api_key_id.'),
  project_id: projectId.when('source', { is: 'editor', then: Joi.required(), otherwise: Joi.forbidden() }),
};

export const submitJobRequest = named(
  Joi.alternatives(
    Joi.object({ ...submitOwner, type: Joi.string().valid('video').required(), params: videoParams.required() }),
    Joi.object({ ...submitOwner, type: Joi.string().valid('image').required(), params: imageParams.required() }),
  )
    .match('one')
    .custom((req: { source?: JobSource; api_key_id: number | null }, helpers) =>
      // Only a job of the dashboard session (playground, studio turn) may lack a key: a job made
      // over the API always has the key that made it.
      req.api_key_id === null && (req.source ?? 'api') === 'api' ? helpers.error('any.invalid') : req,
    ),
  'SubmitJobRequest',
);

export const submitJobReply = named(
  Joi.object({
    job_id: Joi.string().required(),
    status: Joi.string().valid('processing').required(),
    model: Joi.string().required().description('Model id (vidgen-2.0, vidgen-2.0-fast, imagegen-2).'),
    credits_consumed: Joi.number().integer().required(),
    credits_remaining: Joi.number().integer().required(),
  }),
  'SubmitJobReply',
);

export const jobRef = named(Joi.object({ user_id: userId, job_id: jobId }), 'JobRef');
/** The most reads one jobs.get-many request carries (the gateway coalesces concurrent GET /jobs/:id). */
export const JOB_REFS_MAX = 100;
export const jobRefs = named(
  Joi.object({ refs: Joi.array().items(jobRef).min(1).max(JOB_REFS_MAX).required() }),
  'JobRefs',
);
/** jobs.get-many's answer: each ref's Job, in the request's order, or null where jobs.get would be a 404. */
export const jobsOfRefs = named(Joi.object({ jobs: Joi.array().items(jobView.allow(null)).required() }), 'JobsOfRefs');
export const cancelJobRequest = named(
  Joi.object({
    user_id: userId,
    job_id: jobId,
    cancelled_by: Joi.string()
      .valid(...CANCELLED_BY)
      .description('Default `user`: the refund\'s ledger line then says "cancelled by you".'),
  }),
  'CancelJobRequest',
);
export const cancelJobReply = named(
  Joi.object({
    job_id: Joi.string().required(),
    status: Joi.string().valid('cancelled').required(),
    refunded_credits: Joi.number().integer().required(),
  }),
  'CancelJobReply',
);

/** For other services (the editor): a job's state with the storage keys of its outputs. */
export const jobResultReply = named(
  Joi.object({
    job_id: Joi.string().required(),
    status: Joi.string()
      .valid(...JOB_STATUSES)
      .required(),
    type: jobType.required(),
    result_keys: Joi.array()
      .items(Joi.string())
      .required()
      .description('Storage keys of the outputs, in order, when completed.'),
    error: Joi.string().allow(null).required(),
    credits_consumed: Joi.number().integer().required(),
  }),
  'JobResultReply',
);

/** A page of a user's jobs, newest first: `before` is the last job_id of the previous page. */
export const listJobsRequest = named(
  Joi.object({
    user_id: userId,
    limit: Joi.number().integer().min(1).max(100).description('1-100, default 50.'),
    before: Joi.string().pattern(JOB_ID),
    status: Joi.string().valid(...JOB_STATUSES),
    model: Joi.string().max(100).description('A model id: vidgen-2.0, vidgen-2.0-fast, imagegen-2.'),
    type: jobType,
    api_key_id: Joi.number().integer().min(1).description('Only the jobs submitted with this key.'),
    created_gte: Joi.string().isoDate().description('Only the jobs created at or after this instant.'),
    created_lte: Joi.string().isoDate().description('Only the jobs created at or before this instant.'),
  }),
  'ListJobsRequest',
);

/** A Job object with the key it was submitted with (the dashboard shows which key made it). */
export const jobListItem = named(
  jobView.keys({ api_key_id: Joi.number().integer().allow(null).required() }),
  'JobListItem',
);

export const listJobsReply = named(
  Joi.object({
    jobs: Joi.array().items(jobListItem).required(),
    has_more: Joi.boolean().required().description('Whether older jobs match beyond this page.'),
  }),
  'ListJobsReply',
);

/** An upstream provider says a job changed: a nudge to poll it now (the payload is trusted only once its signature is checked). */
export const providerCallbackRequest = named(
  Joi.object({
    job_id: jobId,
    token: Joi.string().max(200).required(),
    attempt: Joi.number()
      .integer()
      .min(1)
      .max(100)
      .description('The attempt the callback URL was given to (jobs fall through routes, one attempt each).'),
    webhook: Joi.object({
      headers: Joi.object().pattern(Joi.string().max(100), Joi.string().max(2000)).max(10).required(),
      body: Joi.string().max(1_048_576).allow('').required(),
    }).description(
      'The raw body and signature headers, for upstreams that sign their callbacks (Replicate, OpenRouter, fal).',
    ),
  }),
  'ProviderCallbackRequest',
);

/** A provider callback handed to jobs one way: persistent, no deadline; a late or repeated one is harmless. */
export const providerCallbackReceived: EventDef<T.ProviderCallbackRequest> = eventDef(
  ROUTING_KEYS.providerCallbackReceived,
  providerCallbackRequest,
);

export const jobsRpc = {
  queue: QUEUES.jobsRpc,
  methods: {
    submit: rpcMethod<T.SubmitJobRequest, T.SubmitJobReply>('jobs.submit', submitJobRequest),
    get: rpcMethod<T.JobRef, T.Job>('jobs.get', jobRef),
    /** Several jobs.get in one message: one broker round trip and one query for reads made together. */
    getMany: rpcMethod<T.JobRefs, T.JobsOfRefs>('jobs.get-many', jobRefs),
    cancel: rpcMethod<T.CancelJobRequest, T.CancelJobReply>('jobs.cancel', cancelJobRequest),
    getResult: rpcMethod<T.JobRef, T.JobResultReply>('jobs.get-result', jobRef),
    list: rpcMethod<T.ListJobsRequest, T.ListJobsReply>('jobs.list', listJobsRequest),
    providerCallback: rpcMethod<T.ProviderCallbackRequest, { accepted: boolean }>(
      'jobs.provider-callback',
      providerCallbackRequest,
    ),
    attempts: rpcMethod<T.JobRef, T.JobAttemptsReply>('jobs.attempts', jobRef),
    /** The user's event log (one job's, given job_id), oldest first after a cursor. */
    events: rpcMethod<T.ListEventsRequest, T.EventsPage>('jobs.events', listEventsRequest),
    /** The editor records a background export's event in the user's log (the outbox of job events). */
    appendExportEvent: rpcMethod<T.AppendExportEventRequest, T.AppendExportEventReply>(
      'jobs.append-export-event',
      appendExportEventRequest,
    ),
    /** Writes a test event (a sample job) into the user's log: it then goes out as any event does. */
    recordTestEvent: rpcMethod<T.RecordTestEventRequest, T.LogEvent>('jobs.record-test-event', recordTestEventRequest),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;

/** The jobs service's reports over ranges (docs/usage.md), on a queue of their own: never behind submits. */
export const jobsReportsRpc = {
  queue: QUEUES.jobsReportsRpc,
  methods: {
    /** What attempts cost upstream over a range, by user, model or provider (the operator's report). */
    upstreamCosts: rpcMethod<T.UpstreamCostsRequest, T.UpstreamCostsReply>('jobs.upstream-costs', upstreamCostsRequest),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
