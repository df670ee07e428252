import { estimateRequest, imageRequest, listJobsQuery, videoRequest } from '@mf/contracts';
import { pathParam, resp } from './openapi-helpers';
import type { Operation } from './operation';

/** The catalog, the account, the two submits and the jobs they make. */
export const JOB_OPERATIONS = [
  {
    id: 'listModels',
    method: 'get',
    path: '/models',
    scope: 'models:read',
    summary: 'List the model catalog',
    tag: 'Models',
    reply: { status: 200, description: 'Every model: vidgen-2.0, vidgen-2.0-fast, imagegen-2.', schema: 'ModelList' },
    mcp: { name: 'list_models' },
  },
  {
    id: 'getAccount',
    method: 'get',
    path: '/account',
    summary: 'Credit balance of the key owner',
    tag: 'Account',
    description: 'Read-only, nothing is charged. The period is the calendar month in UTC.',
    reply: { status: 200, description: 'The account.', schema: 'Account', noStore: 'reply' },
  },
  {
    id: 'generateVideo',
    method: 'post',
    path: '/video/vidgen-2/generate',
    scope: 'video:write',
    summary: 'Submit a video generation',
    tag: 'Generation',
    description:
      'Asynchronous: answers 202 with a job id at once; poll `poll_url` or receive a webhook. Credits are charged before the provider call; a failed submission is refunded (502). Strict types; an unknown field is a 400 naming it; `null` for an optional field means not given.',
    body: videoRequest,
    reply: { status: 202, description: 'Accepted: the job is processing.', schema: 'GenerationAccepted' },
    statuses: { '402': resp('InsufficientCredits'), '502': resp('BadGateway') },
    mcp: { name: 'generate_media' },
  },
  {
    id: 'generateImage',
    method: 'post',
    path: '/image/imagegen/generate',
    scope: 'image:write',
    summary: 'Submit an image generation or edit',
    tag: 'Generation',
    description: 'Asynchronous, same lifecycle as video. Cost: 50 credits per image.',
    body: imageRequest,
    reply: { status: 202, description: 'Accepted: the job is processing.', schema: 'GenerationAccepted' },
    statuses: { '402': resp('InsufficientCredits'), '502': resp('BadGateway') },
    mcp: { name: 'generate_media' },
  },
  {
    id: 'listJobs',
    sdk: 'hand-written',
    method: 'get',
    path: '/jobs',
    scope: 'jobs:read',
    summary: 'List your jobs',
    tag: 'Jobs',
    description: [
      'The jobs of the key owner (made with any of their keys, by the editor or in the dashboard), newest first, each the same Job object as `GET /api/v1/jobs/{id}`.',
      'Page with `starting_after` = the last `job_id` of the previous page while `has_more` is true. Filters narrow the list; an unknown parameter is a 400 naming it.',
    ].join(' '),
    query: listJobsQuery,
    reply: { status: 200, description: 'A page of jobs.', schema: 'JobsPage', noStore: 'reply' },
    mcp: { name: 'job_status' },
  },
  {
    id: 'getJob',
    method: 'get',
    path: '/jobs/{id}',
    pathParams: [pathParam('id', 'The job id.')],
    summary: 'Get a job',
    tag: 'Jobs',
    description:
      'Any key of the job owner. Another user’s job, an evicted one (about 30 days) or a malformed id is a 404 `Job not found`.',
    reply: { status: 200, description: 'The job.', schema: 'Job', noStore: 'reply' },
    mcp: { name: 'job_status' },
  },
  {
    id: 'cancelJob',
    method: 'delete',
    path: '/jobs/{id}',
    summary: 'Cancel a processing job',
    tag: 'Jobs',
    description: 'Refunds the full cost and sends job.cancelled. A completed, failed or cancelled job is a 409.',
    reply: { status: 200, description: 'Cancelled.', schema: 'CancelJobReply' },
    statuses: { '409': resp('Conflict') },
  },
] as const satisfies readonly Operation[];

/** A submit's price, charging nothing (docs/api-behaviour.md "Cost estimate"). */
export const ESTIMATE_OPERATIONS = [
  {
    id: 'estimateCost',
    sdk: 'hand-written',
    method: 'post',
    path: '/estimate',
    summary: 'Price a generation without submitting it',
    tag: 'Generation',
    description:
      'The body of a video or image submit plus `model` (a catalog id). Validated exactly as the submit, with the same messages; answers what the submit would charge and whether the balance (and the key’s monthly spend limit, if set) covers it. Nothing is charged, no job is made.',
    body: estimateRequest,
    reply: { status: 200, description: 'The price.', schema: 'EstimateReply', noStore: 'always' },
  },
] as const satisfies readonly Operation[];
