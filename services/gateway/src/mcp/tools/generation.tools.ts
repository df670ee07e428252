import Joi from 'joi';
import { imageCost, videoCost } from '@mf/catalog';
import {
  allOptional,
  IMAGE_ASPECT_RATIOS,
  IMAGE_URLS_MAX,
  imageRequest,
  JOBS_PAGE_DEFAULT,
  JOBS_PAGE_MAX,
  jobsPage,
  jobView,
  listJobsQuery,
  modelListWithPrices,
  NUM_IMAGES_MAX,
  VIDEO_ASPECT_RATIOS,
  VIDEO_DURATIONS,
  videoRequest,
  VIDEO_RESOLUTIONS,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import { generationScope } from '../../core/usecases/generate.usecase';
import { getJob, JOB_ID, listJobs } from '../../core/usecases/jobs.usecase';
import { scopeOf } from '../../operations/table';
import { listModelsWithPrices } from '../../core/usecases/price-table.usecase';
import { toolArgs } from '../schemas';
import { fieldList, generationArgs, type GenerationArgsWording } from './generation-args';
import { generateMediaResult, submitMaybeWaiting, waitArg } from './generation-wait';
import { list, opts, READ_ONLY, scopeLine, type ToolSpec } from './tool';

/**
 * job_status's list arguments as the REST query (text): typed as the tool advertises them, so a
 * "5" for limit is refused as it would be in a JSON body (types are strict), not read as a query.
 */
function listQuery(args: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (name === 'limit') {
      if (typeof value !== 'number')
        throw AppError.badRequest(`limit must be an integer between 1 and ${JOBS_PAGE_MAX}`);
      query[name] = String(value);
    } else if (typeof value !== 'string') throw AppError.badRequest(`${name} must be a string`);
    else query[name] = value;
  }
  return query;
}

const costs = {
  video720: videoCost(false, 1, '720p'),
  video480: videoCost(false, 1, '480p'),
  fast: videoCost(true, 1, '720p'),
  example: videoCost(false, 5, '720p'),
  image: imageCost(1),
};
const POLLING = 'Then call job_status with the job_id every 2-5 seconds while status is processing.';
/** What the description's parameter lists say of some fields (the others are named only). */
const IMAGE_NOTES: Record<string, string> = {
  image_urls: `1-${IMAGE_URLS_MAX} https reference images: the request becomes an edit of them`,
  num_images: `1-${NUM_IMAGES_MAX}, default 1`,
  aspect_ratio: `${list(IMAGE_ASPECT_RATIOS)}; default 1:1`,
};
const VIDEO_NOTES: Record<string, string> = {
  image_url: 'https: animates that image, image-to-video',
  fast: 'true: the faster text-to-video model vidgen-2.0-fast, not with image_url',
  duration_seconds: `${list(VIDEO_DURATIONS)}; default 5`,
  aspect_ratio: `${list(VIDEO_ASPECT_RATIOS)}; default 16:9`,
  resolution: `${list(VIDEO_RESOLUTIONS)}; default 720p`,
  generate_audio: 'native sound effects and ambience; default true',
};

/** generate_media's own wording of some arguments; every other field keeps the contract's description. */
const GENERATE_MEDIA_WORDING: GenerationArgsWording = {
  args: {
    image_urls: `up to ${IMAGE_URLS_MAX} https URLs of reference images; when non-empty the request edits them. Default [].`,
    num_images: `how many images, 1-${NUM_IMAGES_MAX}.`,
    image_url: 'https URL of a start image (image-to-video). Not with fast.',
    fast: 'the faster, cheaper text-to-video model (no image_url).',
    duration_seconds: 'length in seconds.',
    resolution: 'output resolution.',
    generate_audio: 'native sound effects and ambient audio.',
    seed: 'For reproducible output; random when omitted (the job keeps the one used).',
  },
  merged: {
    aspect_ratio: Joi.string()
      .valid(...new Set<string>([...VIDEO_ASPECT_RATIOS, ...IMAGE_ASPECT_RATIOS]))
      .description(
        `Frame shape. Image: ${list(IMAGE_ASPECT_RATIOS)} (default 1:1). Video: ${list(VIDEO_ASPECT_RATIOS)} (default 16:9).`,
      ),
  },
};

const listOnly = (field: string, what: string) => listJobsQuery.extract(field).description(`List only: ${what}`);

/** job_status answers one job (with job_id) or a page of jobs (without): one object schema, every field optional. */
const jobStatusResult = allOptional(jobView)
  .keys({ jobs: jobsPage.extract('jobs').optional(), has_more: jobsPage.extract('has_more').optional() })
  .id('JobStatusResult')
  .description('With job_id: the job. Without: {jobs, has_more}, a page of your jobs.');

export const GENERATION_TOOLS: readonly ToolSpec[] = [
  {
    name: 'list_models',
    title: 'List generation models',
    description: [
      "List the generation models: id, type (image or video), capabilities, accepted parameters (params: type, default, enum, limits) and prices in credits, with a flat price_table (credits per second of video at each resolution, per image) and the price_rule to compute a request's cost.",
      'Free and read-only. Use it to choose parameters or check a price before generate_media.',
      scopeLine(scopeOf('listModels')),
    ].join(' '),
    input: toolArgs({}),
    output: modelListWithPrices,
    annotations: READ_ONLY,
    // async so a scope refusal (thrown) is a rejection, as in every other tool.
    // eslint-disable-next-line @typescript-eslint/require-await
    run: async (_args, ctx) => listModelsWithPrices(ctx.auth, ctx.falEndpoints),
  },
  {
    name: 'job_status',
    title: 'Get a generation job, or list your jobs',
    description: [
      'With job_id: read a generation job started with generate_media: status (processing, completed, failed or cancelled), progress (0-100 while processing when the provider can tell, else null; 100 when completed), credits_consumed, timestamps, its input (prompt and parameters as used, the seed included), and the result.',
      'Poll it every 2-5 seconds while status is processing (images take seconds, videos one to several minutes).',
      'Stop when status is completed (result.images: https URLs of the images; result.video: https URL of the mp4), failed (error says why; the credits were refunded) or cancelled (refunded).',
      "Only jobs of the key's owner are visible: any other id answers 'Job not found'. Jobs older than about 30 days may be gone (same answer). Free; any key, no scope needed.",
      `Without job_id: list your jobs, newest first ({jobs, has_more}), optionally filtered by status, model (a model id) and type; limit 1-${JOBS_PAGE_MAX} (default ${JOBS_PAGE_DEFAULT}); pass starting_after = the last job_id to get the next page while has_more is true. source tells your own jobs (api) from the editor's (editor, with project_id) and the dashboard's. Listing needs scope ${scopeOf('listJobs')}.`,
    ].join(' '),
    input: toolArgs({
      job_id: Joi.string()
        .pattern(JOB_ID)
        .description('The job_id returned by generate_media (job_...). Leave out to list your jobs.'),
      limit: listOnly('limit', 'jobs per page.'),
      starting_after: listOnly('starting_after', 'the last job_id of the previous page.'),
      status: listOnly('status', 'jobs in this status.'),
      model: listOnly('model', 'jobs of this model id.'),
      type: listOnly('type', 'video or image jobs.'),
    }),
    output: jobStatusResult,
    annotations: READ_ONLY,
    run: async ({ job_id, ...filters }, ctx) => {
      const listing = Object.entries(filters).filter(([, v]) => v !== undefined && v !== null);
      if (job_id === undefined || job_id === null) return listJobs(ctx.bus, ctx.auth, listQuery(filters), opts(ctx));
      if (listing.length)
        throw AppError.badRequest(
          `job_id cannot be combined with ${listing.map(([k]) => k).join(', ')} (leave job_id out to list jobs)`,
        );
      return getJob(ctx.bus, ctx.auth, job_id, opts(ctx));
    },
  },
  {
    name: 'generate_media',
    title: 'Generate an image or a video',
    description: [
      'Start generating an image or a video from a prompt. Returns at once with a job_id (status processing) and the credits charged; the media is made in the background.',
      `${POLLING} When completed, job_status gives the https URL(s) of the result. Or pass wait: true (or call it as a task) to get the ended job in the answer.`,
      `type "image" (model imagegen-2; needs scope ${generationScope('image')}): ${fieldList(imageRequest, IMAGE_NOTES)}. Costs ${costs.image} credits per image.`,
      `type "video" (model vidgen-2.0, or vidgen-2.0-fast with fast; needs scope ${generationScope('video')}): ${fieldList(videoRequest, VIDEO_NOTES)}.`,
      `Video costs per second: ${costs.video720} credits at 720p, ${costs.video480} at 480p, ${costs.fast} with fast (e.g. 5 s at 720p = ${costs.example}).`,
      'Arguments of the other type are refused by name. Credits are charged at submission (not enough: an error with credits_required and credits_remaining) and refunded if the job fails or is cancelled. Not idempotent: each call starts (and charges) a new job.',
      "Video prompts work best as a line 'Total: <duration>s / <shot count> shot(s) / <aspect ratio>', then one line per shot (camera position, one camera move, subject action, a lens or lighting note), then an 'Audio:' line (sound effects, ambience, music intent or NO MUSIC).",
    ].join('\n'),
    input: toolArgs(
      {
        type: Joi.string().valid('image', 'video').description('What to generate.'),
        ...generationArgs({ video: videoRequest, image: imageRequest }, GENERATE_MEDIA_WORDING),
        wait: waitArg,
      },
      ['type', 'prompt'],
    ),
    output: generateMediaResult,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    long: true,
    taskDefaults: { wait: true },
    run: async (args, ctx) => submitMaybeWaiting(ctx, args),
    followed: async (args, ctx, step) => submitMaybeWaiting(ctx, args, step),
  },
];
