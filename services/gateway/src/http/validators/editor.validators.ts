import { fail, given, isHttpsUrl, rejectUnknownFields, run, type Validated } from '@mf/catalog';
import { editorRpc, PROJECT_ASPECT_RATIOS, TRACKS, type ProjectAspectRatio, type Track } from '@mf/contracts';

/**
 * Validation of the editor request bodies, in the style of the submit bodies (@mf/catalog): strict
 * types ("5" is not 5), an unknown field is an error naming it, an explicit null means "not given",
 * and a body that is not a JSON object is `Invalid JSON body`. Lengths are counted in characters
 * (Unicode code points). The contract fixes the limits; the messages are ours (docs/editor-api.md).
 */

export const PROJECT_NAME_MAX = 120;
export const DESCRIPTION_MAX = 1000;
export const INSTRUCTION_MAX = 8000;
export const INSTRUCT_IMAGE_URLS_MAX = 10;
export const CONTEXT_MD_MAX = 100_000;
/** The contract caps positions at 10000; a position past a track's end appends, so larger ones mean the same. */
export const CLIP_IDX_CAP = 10_000;
export const DEFAULT_PROJECT_NAME = 'Untitled project';
export const DEFAULT_VIDEO_NAME = 'Untitled video';
export const DEFAULT_ASPECT_RATIO: ProjectAspectRatio = '9:16';
export const EXPORT_FITS = ['fit', 'fill'] as const;
export type ExportFit = (typeof EXPORT_FITS)[number];

export const MESSAGES = {
  invalidBody: 'Invalid JSON body',
  name: `name must be 1-${PROJECT_NAME_MAX} characters`,
  description: `description must be at most ${DESCRIPTION_MAX} characters`,
  aspectRatio: `aspect_ratio must be one of ${PROJECT_ASPECT_RATIOS.join(', ')}`,
  instructEmpty: 'instruction or image_urls is required',
  instructionLength: `instruction must be at most ${INSTRUCTION_MAX} characters`,
  instructionType: 'instruction must be a string',
  imageUrls: `image_urls must be an array of at most ${INSTRUCT_IMAGE_URLS_MAX} https URLs`,
  imageUrlItems: 'image_urls items must be https URLs',
  videoId: 'video_id must be a string',
  fit: `fit must be one of ${EXPORT_FITS.join(', ')}`,
  url: 'url must be a https URL',
  track: `track must be one of ${TRACKS.join(', ')}`,
  assetId: 'asset_id is required',
  idx: 'idx must be an integer of at least 0',
  durationSec: 'duration_sec must be a number between 0.1 and 600',
  startSec: 'start_sec must be a number between 0 and 3600',
  volume: 'volume must be a number between 0 and 2',
  contextMd: `context_md must be a string of at most ${CONTEXT_MD_MAX} characters`,
} as const;

export interface CreateProjectBody {
  name: string;
  description: string | null;
  aspect_ratio: ProjectAspectRatio;
}
export interface InstructBody {
  instruction: string;
  image_urls: string[];
  video_id?: string;
}
export interface ExportBody {
  video_id?: string;
  fit: ExportFit;
}
export interface NameBody {
  name: string;
}
export interface ImportAssetBody {
  url: string;
}
export interface AddClipBody {
  video_id?: string;
  track: Track;
  asset_id: string;
  idx?: number;
  duration_sec?: number;
  start_sec?: number;
  volume?: number;
}
export interface MoveClipBody {
  idx: number;
}
export interface UpdateContextBody {
  context_md: string;
}
export interface SetAspectRatioBody {
  aspect_ratio: ProjectAspectRatio;
}
export interface GetProjectQuery {
  video_id?: string;
}


function asObject(body: unknown, fields: readonly string[]): Record<string, unknown> {
  // A request sent without any body (a bare POST) counts as {}; an explicit JSON null does not.
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) fail(MESSAGES.invalidBody);
  const obj = body as Record<string, unknown>;
  rejectUnknownFields(obj, fields);
  return obj;
}

/** Characters as a person counts them (code points), not UTF-16 units. */
const chars = (s: string): number => [...s].length;

// The contract's own URL rule, so a URL we accept is never refused by the service's schema.
const contractUrl = editorRpc.methods.importAsset.request.extract('url');
export function isEditorHttpsUrl(v: unknown): v is string {
  return isHttpsUrl(v) && contractUrl.validate(v, { convert: false }).error === undefined;
}

function name(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '' || chars(v) > PROJECT_NAME_MAX) fail(MESSAGES.name);
  return v as string;
}

function aspectRatio(v: unknown): ProjectAspectRatio {
  if (!(PROJECT_ASPECT_RATIOS as readonly unknown[]).includes(v)) fail(MESSAGES.aspectRatio);
  return v as ProjectAspectRatio;
}

function optionalVideoId(v: unknown): { video_id?: string } {
  if (!given(v)) return {};
  if (typeof v !== 'string') fail(MESSAGES.videoId);
  return { video_id: v as string };
}

function number(v: unknown, min: number, max: number, message: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) fail(message);
  return v as number;
}

function idx(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(MESSAGES.idx);
  return Math.min(v as number, CLIP_IDX_CAP);
}

/** POST /media-studio/projects */
export function validateCreateProject(body: unknown): Validated<CreateProjectBody> {
  return run(() => {
    const b = asObject(body, ['name', 'description', 'aspect_ratio']);
    const description = b.description;
    if (given(description) && (typeof description !== 'string' || chars(description) > DESCRIPTION_MAX)) fail(MESSAGES.description);
    return {
      name: given(b.name) ? name(b.name) : DEFAULT_PROJECT_NAME,
      description: given(description) ? (description as string) : null,
      aspect_ratio: given(b.aspect_ratio) ? aspectRatio(b.aspect_ratio) : DEFAULT_ASPECT_RATIO,
    };
  });
}

/** POST /media-studio/projects/:id/instruct */
export function validateInstruct(body: unknown): Validated<InstructBody> {
  return run(() => {
    const b = asObject(body, ['instruction', 'image_urls', 'video_id']);
    let instruction = '';
    if (given(b.instruction)) {
      if (typeof b.instruction !== 'string') fail(MESSAGES.instructionType);
      instruction = b.instruction as string;
      if (chars(instruction) > INSTRUCTION_MAX) fail(MESSAGES.instructionLength);
    }
    let imageUrls: string[] = [];
    if (given(b.image_urls)) {
      if (!Array.isArray(b.image_urls) || b.image_urls.length > INSTRUCT_IMAGE_URLS_MAX) fail(MESSAGES.imageUrls);
      const urls = b.image_urls as unknown[];
      if (!urls.every(isEditorHttpsUrl)) fail(MESSAGES.imageUrlItems);
      imageUrls = urls as string[];
    }
    // A blank instruction asks nothing: the turn (5 credits) would be wasted.
    if (instruction.trim() === '' && imageUrls.length === 0) fail(MESSAGES.instructEmpty);
    return { instruction, image_urls: imageUrls, ...optionalVideoId(b.video_id) };
  });
}

/** POST /media-studio/projects/:id/export. */
export function validateExport(body: unknown): Validated<ExportBody> {
  return run(() => {
    const b = asObject(body, ['video_id', 'fit']);
    const videoId = optionalVideoId(b.video_id);
    if (given(b.fit) && !(EXPORT_FITS as readonly unknown[]).includes(b.fit)) fail(MESSAGES.fit);
    return { ...videoId, fit: given(b.fit) ? (b.fit as ExportFit) : 'fit' };
  });
}

/** POST /media-studio/projects/:id/videos: the name is optional. */
export function validateCreateVideo(body: unknown): Validated<NameBody> {
  return run(() => {
    const b = asObject(body, ['name']);
    return { name: given(b.name) ? name(b.name) : DEFAULT_VIDEO_NAME };
  });
}

/** PATCH /media-studio/projects/:id and /videos/:videoId: renaming needs the new name. */
export function validateRename(body: unknown): Validated<NameBody> {
  return run(() => ({ name: name(asObject(body, ['name']).name) }));
}

/** POST /media-studio/projects/:id/assets */
export function validateImportAsset(body: unknown): Validated<ImportAssetBody> {
  return run(() => {
    const url = asObject(body, ['url']).url;
    if (!isEditorHttpsUrl(url)) fail(MESSAGES.url);
    return { url: url as string };
  });
}

/** POST /media-studio/projects/:id/clips */
export function validateAddClip(body: unknown): Validated<AddClipBody> {
  return run(() => {
    const b = asObject(body, ['video_id', 'track', 'asset_id', 'idx', 'duration_sec', 'start_sec', 'volume']);
    const videoId = optionalVideoId(b.video_id);
    if (!(TRACKS as readonly unknown[]).includes(b.track)) fail(MESSAGES.track);
    if (typeof b.asset_id !== 'string' || b.asset_id === '') fail(MESSAGES.assetId);
    const clip: AddClipBody = { ...videoId, track: b.track as Track, asset_id: b.asset_id as string };
    if (given(b.idx)) clip.idx = idx(b.idx);
    if (given(b.duration_sec)) clip.duration_sec = number(b.duration_sec, 0.1, 600, MESSAGES.durationSec);
    if (given(b.start_sec)) clip.start_sec = number(b.start_sec, 0, 3600, MESSAGES.startSec);
    if (given(b.volume)) clip.volume = number(b.volume, 0, 2, MESSAGES.volume);
    return clip;
  });
}

/** PATCH /media-studio/projects/:id/clips/:clipId */
export function validateMoveClip(body: unknown): Validated<MoveClipBody> {
  return run(() => ({ idx: idx(asObject(body, ['idx']).idx) }));
}

/** PUT /media-studio/projects/:id/context: the whole context, '' clears it. */
export function validateUpdateContext(body: unknown): Validated<UpdateContextBody> {
  return run(() => {
    const context = asObject(body, ['context_md']).context_md;
    if (typeof context !== 'string' || chars(context) > CONTEXT_MD_MAX) fail(MESSAGES.contextMd);
    return { context_md: context as string };
  });
}

/** PUT /media-studio/projects/:id/aspect-ratio */
export function validateSetAspectRatio(body: unknown): Validated<SetAspectRatioBody> {
  return run(() => ({ aspect_ratio: aspectRatio(asObject(body, ['aspect_ratio']).aspect_ratio) }));
}

/**
 * The query of GET /media-studio/projects/:id. Other parameters are ignored, as query strings
 * usually are; a repeated or bracketed video_id (an array or object) is refused.
 */
export function validateGetProjectQuery(query: Record<string, unknown>): Validated<GetProjectQuery> {
  return run(() => {
    const v = query.video_id;
    // `?video_id=` is "not given", like a JSON null.
    if (v === undefined || v === '') return {};
    return optionalVideoId(v);
  });
}
