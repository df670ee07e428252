import { imageRequest, listJobsQuery, videoRequest } from '@mf/contracts';
import { noStoreHeader, ok, op, pathParam, queryParams, ref, resp, type Json } from './helpers';

/**
 * The operations of /api/v1: paths, methods, words and statuses, kept by hand; every request and
 * response schema they name is derived from @mf/contracts (components.ts).
 */

export const apiPaths: Json = {
  '/api/v1/models': {
    get: op({
      id: 'listModels',
      summary: 'List the model catalog',
      tag: 'Models',
      scope: 'models:read',
      responses: { '200': ok('Every model: vidgen-2.0, vidgen-2.0-fast, imagegen-2.', ref('ModelList')) },
    }),
  },
  '/api/v1/account': {
    get: op({
      id: 'getAccount',
      summary: 'Credit balance of the key owner',
      tag: 'Account',
      description: 'Read-only, nothing is charged. The period is the calendar month in UTC.',
      responses: { '200': ok('The account.', ref('Account'), noStoreHeader) },
    }),
  },
  '/api/v1/video/vidgen-2/generate': {
    post: op({
      id: 'generateVideo',
      summary: 'Submit a video generation',
      tag: 'Generation',
      scope: 'video:write',
      description:
        'Asynchronous: answers 202 with a job id at once; poll `poll_url` or receive a webhook. Credits are charged before the provider call; a failed submission is refunded (502). Strict types; an unknown field is a 400 naming it; `null` for an optional field means not given.',
      body: videoRequest,
      responses: {
        '202': ok('Accepted: the job is processing.', ref('GenerationAccepted')),
        '402': resp('InsufficientCredits'),
        '502': resp('BadGateway'),
      },
    }),
  },
  '/api/v1/image/imagegen/generate': {
    post: op({
      id: 'generateImage',
      summary: 'Submit an image generation or edit',
      tag: 'Generation',
      scope: 'image:write',
      description: 'Asynchronous, same lifecycle as video. Cost: 50 credits per image.',
      body: imageRequest,
      responses: {
        '202': ok('Accepted: the job is processing.', ref('GenerationAccepted')),
        '402': resp('InsufficientCredits'),
        '502': resp('BadGateway'),
      },
    }),
  },
  '/api/v1/jobs': {
    get: op({
      id: 'listJobs',
      summary: 'List your jobs',
      tag: 'Jobs',
      scope: 'jobs:read',
      description: [
        'The jobs of the key owner (made with any of their keys, by the editor or in the dashboard), newest first, each the same Job object as `GET /api/v1/jobs/{id}`.',
        'Page with `starting_after` = the last `job_id` of the previous page while `has_more` is true. Filters narrow the list; an unknown parameter is a 400 naming it.',
      ].join(' '),
      parameters: queryParams(listJobsQuery),
      responses: { '200': ok('A page of jobs.', ref('JobsPage'), noStoreHeader) },
    }),
  },
  '/api/v1/jobs/{id}': {
    parameters: [pathParam('id', 'The job id.')],
    get: op({
      id: 'getJob',
      summary: 'Get a job',
      tag: 'Jobs',
      description:
        'Any key of the job owner. Another user’s job, an evicted one (about 30 days) or a malformed id is a 404 `Job not found`.',
      responses: { '200': ok('The job.', ref('Job'), noStoreHeader) },
    }),
    delete: op({
      id: 'cancelJob',
      summary: 'Cancel a processing job',
      tag: 'Jobs',
      description: 'Refunds the full cost and sends job.cancelled. A completed, failed or cancelled job is a 409.',
      responses: { '200': ok('Cancelled.', ref('CancelJobReply')), '409': resp('Conflict') },
    }),
  },
};
