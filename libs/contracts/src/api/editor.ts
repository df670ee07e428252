import Joi from 'joi';
import { chars, httpsUrl, named, notBlank, optional, says } from '../schema/rules';

/**
 * The editor's request bodies (contract section 4, plus the direct edits of docs/editor-api.md)
 * and their limits, defined once: the gateway validates with them, the editor service's RPC
 * schemas are built from the same fields, and the OpenAPI document and MCP tools are derived.
 * Lengths count characters (code points). The limits are the contract's; the messages are ours.
 */

export const PROJECT_ASPECT_RATIOS = ['9:16', '1:1', '4:5', '16:9', '4:3'] as const;
export type ProjectAspectRatio = (typeof PROJECT_ASPECT_RATIOS)[number];
export const TRACKS = ['video', 'voice', 'sfx', 'music'] as const;
export type Track = (typeof TRACKS)[number];
export const EXPORT_FITS = ['fit', 'fill'] as const;
export type ExportFit = (typeof EXPORT_FITS)[number];

export const PROJECT_NAME_MAX = 120;
export const DESCRIPTION_MAX = 1000;
export const INSTRUCTION_MAX = 8000;
export const INSTRUCT_IMAGE_URLS_MAX = 10;
export const CONTEXT_MD_MAX = 100_000;
/** The contract caps positions at 10000; a position past a track's end appends, so larger ones mean the same. */
export const CLIP_IDX_CAP = 10_000;
export const CLIP_DURATION_SEC = { min: 0.1, max: 600 } as const;
export const CLIP_START_SEC = { min: 0, max: 3600 } as const;
export const CLIP_VOLUME = { min: 0, max: 2 } as const;
export const DEFAULT_PROJECT_NAME = 'Untitled project';
export const DEFAULT_VIDEO_NAME = 'Untitled video';
export const DEFAULT_PROJECT_ASPECT_RATIO: ProjectAspectRatio = '9:16';

const oneOf = (field: string, values: readonly string[]) => `${field} must be one of ${values.join(', ')}`;

/** The editor's messages (docs/editor-api.md). */
export const EDITOR_MESSAGES = {
  name: `name must be 1-${PROJECT_NAME_MAX} characters`,
  description: `description must be at most ${DESCRIPTION_MAX} characters`,
  aspectRatio: oneOf('aspect_ratio', PROJECT_ASPECT_RATIOS),
  instructEmpty: 'instruction or image_urls is required',
  instructionLength: `instruction must be at most ${INSTRUCTION_MAX} characters`,
  instructionType: 'instruction must be a string',
  imageUrls: `image_urls must be an array of at most ${INSTRUCT_IMAGE_URLS_MAX} https URLs`,
  imageUrlItems: 'image_urls items must be https URLs',
  videoId: 'video_id must be a string',
  fit: oneOf('fit', EXPORT_FITS),
  url: 'url must be a https URL',
  importSource: 'either url or job_id is required, not both',
  jobId: 'job_id must be a string',
  index: 'index must be an integer of at least 0',
  indexWithoutJob: 'index applies to job_id only',
  track: oneOf('track', TRACKS),
  assetId: 'asset_id is required',
  idx: 'idx must be an integer of at least 0',
  durationSec: `duration_sec must be a number between ${CLIP_DURATION_SEC.min} and ${CLIP_DURATION_SEC.max}`,
  startSec: `start_sec must be a number between ${CLIP_START_SEC.min} and ${CLIP_START_SEC.max}`,
  volume: `volume must be a number between ${CLIP_VOLUME.min} and ${CLIP_VOLUME.max}`,
  contextMd: `context_md must be a string of at most ${CONTEXT_MD_MAX} characters`,
} as const;

const M = EDITOR_MESSAGES;

/** The fields, each with its one message. */
export const editorFields = {
  name: says(notBlank(chars({ min: 1, max: PROJECT_NAME_MAX })), M.name).description(
    `1-${PROJECT_NAME_MAX} characters.`,
  ),
  description: says(chars({ max: DESCRIPTION_MAX }).allow(''), M.description).description(
    `Up to ${DESCRIPTION_MAX} characters.`,
  ),
  aspectRatio: says(Joi.string().valid(...PROJECT_ASPECT_RATIOS), M.aspectRatio),
  instruction: says(chars({ max: INSTRUCTION_MAX }).allow(''), M.instructionType, {
    'string.maxChars': M.instructionLength,
  }).description(`Plain-language request or a reply to the agent's question, up to ${INSTRUCTION_MAX} characters.`),
  instructImageUrls: says(
    Joi.array().items(says(httpsUrl(), M.imageUrlItems)).max(INSTRUCT_IMAGE_URLS_MAX),
    M.imageUrls,
  ).description(`Up to ${INSTRUCT_IMAGE_URLS_MAX} https reference images for this turn.`),
  // Any string: one that cannot be an id is the record's 404, answered before any lookup.
  videoId: says(Joi.string().allow(''), M.videoId).description(
    "The target video; defaults to the project's default video.",
  ),
  fit: says(Joi.string().valid(...EXPORT_FITS), M.fit).description(
    'fit: letterbox or pillarbox; fill: scale and crop to fill the frame.',
  ),
  url: says(httpsUrl(), M.url).description('A public https URL of an image, a video or audio.'),
  // Any string: one that cannot be a job id is the job's 404, answered before any lookup.
  jobId: says(Joi.string().min(1), M.jobId).description(
    "One of the caller's own completed jobs (job_...): its result becomes the asset, without a download.",
  ),
  index: says(Joi.number().integer().min(0), M.index).description(
    "Which of an image job's results (from 0, default 0); a video job has one.",
  ),
  track: says(Joi.string().valid(...TRACKS), M.track),
  assetId: says(Joi.string().min(1), M.assetId),
  idx: says(Joi.number().integer().min(0), M.idx)
    .custom((v: number) => Math.min(v, CLIP_IDX_CAP))
    .description('Position on the track, from 0; past the end appends.'),
  durationSec: says(Joi.number().min(CLIP_DURATION_SEC.min).max(CLIP_DURATION_SEC.max), M.durationSec).description(
    'How long the clip plays, seconds.',
  ),
  startSec: says(Joi.number().min(CLIP_START_SEC.min).max(CLIP_START_SEC.max), M.startSec).description(
    'Where an audio clip starts on the timeline, seconds.',
  ),
  volume: says(Joi.number().min(CLIP_VOLUME.min).max(CLIP_VOLUME.max), M.volume).description(
    'Gain of an audio clip, 0-2.',
  ),
  contextMd: says(chars({ max: CONTEXT_MD_MAX }).allow(''), M.contextMd).description(
    `The whole context (Markdown), up to ${CONTEXT_MD_MAX} characters; '' clears it.`,
  ),
};

const F = editorFields;

/** POST /media-studio/projects */
export const createProjectBody = named(
  Joi.object({
    name: optional(F.name.default(DEFAULT_PROJECT_NAME)),
    description: optional(F.description.allow(null).default(null)),
    aspect_ratio: optional(F.aspectRatio.default(DEFAULT_PROJECT_ASPECT_RATIO)),
  }),
  'CreateProjectBody',
);

/** POST /media-studio/projects/:id/instruct */
export const instructBody = named(
  Joi.object({
    instruction: optional(F.instruction.default('')),
    image_urls: optional(F.instructImageUrls.default([])),
    video_id: optional(F.videoId),
  }).custom((v: { instruction: string; image_urls: string[] }, helpers) =>
    // A blank instruction asks nothing: the turn (5 credits) would be wasted.
    v.instruction.trim() === '' && v.image_urls.length === 0 ? helpers.message({ custom: M.instructEmpty }) : v,
  ),
  'InstructBody',
);

/** POST /media-studio/projects/:id/export */
export const exportBody = named(
  Joi.object({ video_id: optional(F.videoId), fit: optional(F.fit.default('fit')) }),
  'ExportBody',
);

/** POST /media-studio/projects/:id/videos: the name is optional. */
export const createVideoBody = named(
  Joi.object({ name: optional(F.name.default(DEFAULT_VIDEO_NAME)) }),
  'CreateVideoBody',
);

/** PATCH /media-studio/projects/:id and /videos/:videoId: renaming needs the new name. */
export const renameBody = named(Joi.object({ name: F.name.required() }), 'RenameBody');

/** POST /media-studio/projects/:id/assets */
export const importAssetBody = named(
  Joi.object({ url: optional(F.url), job_id: optional(F.jobId), index: optional(F.index) }).custom(
    (v: { url?: string; job_id?: string; index?: number }, helpers) => {
      // Neither source keeps the answer the url-only body always gave; both is the new conflict.
      if (v.url === undefined && v.job_id === undefined) return helpers.message({ custom: M.url });
      if (v.url !== undefined && v.job_id !== undefined) return helpers.message({ custom: M.importSource });
      if (v.index !== undefined && v.job_id === undefined) return helpers.message({ custom: M.indexWithoutJob });
      return v;
    },
  ),
  'ImportAssetBody',
);

/** POST /media-studio/projects/:id/clips */
export const addClipBody = named(
  Joi.object({
    video_id: optional(F.videoId),
    track: F.track.required(),
    asset_id: F.assetId.required(),
    idx: optional(F.idx),
    duration_sec: optional(F.durationSec),
    start_sec: optional(F.startSec),
    volume: optional(F.volume),
  }),
  'AddClipBody',
);

/** PATCH /media-studio/projects/:id/clips/:clipId */
export const moveClipBody = named(Joi.object({ idx: F.idx.required() }), 'MoveClipBody');

/** PUT /media-studio/projects/:id/context: the whole context, '' clears it. */
export const updateContextBody = named(Joi.object({ context_md: F.contextMd.required() }), 'UpdateContextBody');

/** PUT /media-studio/projects/:id/aspect-ratio */
export const setAspectRatioBody = named(Joi.object({ aspect_ratio: F.aspectRatio.required() }), 'SetAspectRatioBody');

/**
 * The query of GET /media-studio/projects/:id. Other parameters are ignored, as query strings
 * usually are; `?video_id=` is "not given"; a repeated or bracketed video_id is refused.
 */
export const getProjectQuery = named(
  Joi.object({ video_id: F.videoId.empty('') }).options({ allowUnknown: true, stripUnknown: true }),
  'GetProjectQuery',
);
