import * as z from 'zod/v4';
import { PROJECT_ASPECT_RATIOS, TRACKS } from '@mf/contracts';

/**
 * Tool input schemas are documentation, not validation. The client sees a precise JSON Schema
 * (types, enums, limits, defaults, which arguments are required, no others), built from the same
 * constants as the rules; the values are checked once, by the use case behind the tool, so a bad
 * argument gets the contract's message exactly as over REST. Parsing here therefore accepts any
 * value and keeps unknown arguments, which the use case then refuses by name.
 */

/** A JSON Schema fragment; every argument carries a description an LLM can act on. */
export type ArgSchema = { description: string } & Record<string, unknown>;

/** One argument: advertised with `schema`, passed through unchecked. */
export function arg(schema: ArgSchema) {
  return z.unknown().optional().meta(schema);
}

/** A tool's arguments: the advertised object schema (with `required`), parsed leniently. */
export function toolArgs(shape: Record<string, ReturnType<typeof arg>>, required: string[] = []) {
  return z.looseObject(shape).meta({ additionalProperties: false, ...(required.length ? { required } : {}) });
}

export type ToolArgsSchema = ReturnType<typeof toolArgs>;

// Output schemas: what the services answer, validated for real (by the SDK on both ends). Records
// are loose objects: a field the service adds later must not break clients that validate.

const timestamp = z.string().describe('ISO 8601 UTC timestamp');
const aspectRatio = z.enum(PROJECT_ASPECT_RATIOS);

export const modelsOutput = z.looseObject({
  models: z.array(
    z.looseObject({
      id: z.string().describe('Model id, e.g. vidgen-2.0, vidgen-2.0-fast, imagegen-2'),
      type: z.enum(['video', 'image']),
      name: z.string(),
      provider: z.string(),
      description: z.string(),
      capabilities: z.array(z.string()),
      params: z.record(z.string(), z.unknown()).describe('Accepted parameters, by name: type, default, enum, limits'),
      credits: z.record(z.string(), z.unknown()).describe('Prices in credits'),
    }),
  ),
});

export const jobOutput = z.looseObject({
  job_id: z.string(),
  status: z.enum(['processing', 'completed', 'failed', 'cancelled']).describe('processing until it completes, fails (refunded) or is cancelled (refunded)'),
  model: z.string().describe('Display name of the model'),
  type: z.enum(['video', 'image']),
  credits_consumed: z.number().int(),
  created_at: timestamp,
  completed_at: timestamp.nullable().describe('null while processing'),
  result: z
    .looseObject({
      video: z.string().optional().describe('Video jobs: https URL of the mp4'),
      images: z.array(z.string()).optional().describe('Image jobs: https URLs of the images'),
    })
    .nullable()
    .describe('Set when completed, else null'),
  error: z.string().nullable().describe('Failure message when failed, else null'),
});

export const submittedOutput = z.looseObject({
  job_id: z.string().describe('Pass to job_status'),
  status: z.literal('processing'),
  model: z.string().describe('Model id chosen: vidgen-2.0, vidgen-2.0-fast or imagegen-2'),
  credits_consumed: z.number().int().describe('Charged now; refunded if the job fails'),
  credits_remaining: z.number().int(),
  poll_url: z.string().describe('REST path of the job (GET /api/v1/jobs/<job_id>); job_status reads the same'),
});

const project = z.looseObject({
  id: z.string().describe('Project id (prj_...)'),
  name: z.string(),
  aspect_ratio: aspectRatio,
  context_md: z.string().describe('Markdown context the agent reads every turn'),
  created_at: timestamp,
  updated_at: timestamp,
});

const video = z.looseObject({
  id: z.string().describe('Video id (vid_...)'),
  name: z.string(),
  aspect_ratio: aspectRatio,
  created_at: timestamp,
});

const asset = z.looseObject({
  id: z.string().describe('Asset id (ast_...)'),
  kind: z.string().describe('image, video, audio or export'),
  source: z.string().describe('generated, upload, import, tts, music, sfx or export'),
  url: z.string().describe('https URL of the media, served by this service'),
  metadata: z.record(z.string(), z.unknown()).describe('e.g. prompt, model, width, height, duration_sec, has_audio, source_url'),
});

const clip = z.looseObject({
  id: z.string().describe('Clip id (clp_...)'),
  video_id: z.string(),
  track: z.enum(TRACKS),
  idx: z.number().int().describe('Position on its track, from 0'),
  asset_id: z.string(),
  duration_sec: z.number().nullable().describe("How long it plays; null: the asset's own length (3 s for stills)"),
  start_sec: z.number().nullable().describe('Audio tracks: start on the timeline; null: with the video clip of the same idx'),
  volume: z.number().describe('0-2, 1 = unchanged'),
});

export const projectOutput = z.looseObject({ project });

export const projectListOutput = z.looseObject({
  projects: z.array(z.looseObject({ id: z.string(), name: z.string(), aspect_ratio: aspectRatio, updated_at: timestamp })).describe('Most recently updated first'),
});

export const stateOutput = z.looseObject({
  project: z.looseObject({ id: z.string(), name: z.string(), aspect_ratio: aspectRatio, context_md: z.string() }),
  videos: z.array(video).describe('Creation order, the default video first'),
  assets: z.array(asset).describe("The project's media library"),
  clips: z.array(clip).describe('Timeline clips (of every video, or of video_id when given)'),
});

export const instructOutput = z.looseObject({
  assistant_text: z.string().describe("The agent's reply; often ends with a question to answer in the next instruct call"),
  assets_created: z.array(asset),
  clips_created: z.array(clip),
  context_appended: z.boolean(),
  aspect_ratio_changed: aspectRatio.nullable(),
  media_gen_done: z.boolean().describe('Whether this turn generated media (at most one generation per turn)'),
  agent_events: z.array(z.looseObject({ type: z.string(), at: z.string() })).describe('What the agent did this turn'),
});

export const exportOutput = z.looseObject({
  asset_id: z.string().describe('The export, also kept in the library as an asset of kind export'),
  video_url: z.string().describe('Permanent https URL of the mp4, downloadable and embeddable'),
  duration_sec: z.number(),
  video_clip_count: z.number().int(),
  audio_overlay_count: z.number().int(),
});

export const videoOutput = z.looseObject({ video });
export const renameOutput = z.looseObject({ project: project.optional().describe('When the project was renamed'), video: video.optional().describe('When a video was renamed') });
export const assetOutput = z.looseObject({ asset });
export const deleteAssetOutput = z.looseObject({ deleted: z.boolean(), clips_removed: z.number().int().describe('Clips that used the asset, removed with it') });
export const clipOutput = z.looseObject({ clip });
export const removeClipOutput = z.looseObject({ removed: z.boolean() });
