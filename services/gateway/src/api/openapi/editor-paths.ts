import {
  addClipBody,
  createProjectBody,
  createVideoBody,
  exportBody,
  getProjectQuery,
  importAssetBody,
  instructBody,
  moveClipBody,
  renameBody,
  setAspectRatioBody,
  updateContextBody,
} from '@mf/contracts';
import {
  commonErrors,
  errorResponse,
  jsonContent,
  noStoreHeader,
  ok,
  op,
  pathParam,
  queryParams,
  ref,
  requestIdHeader,
  resp,
  type Json,
} from './helpers';

/**
 * The operations of /api/v1/media-studio (the video editor): paths, methods, words and statuses,
 * kept by hand; the schemas they name are derived from @mf/contracts (components.ts).
 */

const projectId = pathParam('id', 'Project id (`prj_` + 1-64 letters or digits).', { type: 'string', maxLength: 100 });
/** The asset route also takes an upload: its multipart body beside the JSON one. */
function withUpload(operation: Json): Json {
  const requestBody = operation.requestBody as { content: Record<string, unknown> };
  requestBody.content['multipart/form-data'] = {
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'The media file (type told by its bytes).' },
      },
    },
  };
  return operation;
}

const editorErrors: Json = { '502': resp('BadGateway') };
const project = ref('ProjectReply');

const exportResponses: Json = {
  ...commonErrors,
  '200': ok('The exported video.', ref('ExportReply')),
  '400': {
    description: 'Validation error, or `no_video_clips`.',
    headers: { ...requestIdHeader },
    content: jsonContent({ anyOf: [ref('Error'), ref('ExportError')] }),
  },
  '422': resp('ExportError'),
  '429': {
    description:
      'Over the API rate limit (`retry_after`), or too many exports for this user in the last minute (`rate_limited`).',
    headers: { ...requestIdHeader, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
    content: jsonContent({ anyOf: [ref('RateLimitError'), ref('ExportError')] }),
  },
  '500': {
    description: '`ffmpeg_failed` or `export_failed`, or an internal error.',
    headers: { ...requestIdHeader },
    content: jsonContent({ anyOf: [ref('ServerError'), ref('ExportServerError')] }),
  },
  '502': {
    description: '`source_fetch_failed`.',
    headers: { ...requestIdHeader },
    content: jsonContent(ref('ExportServerError')),
  },
  '503': {
    description: '`storage_unconfigured`, or the editor did not answer in time.',
    headers: { ...requestIdHeader },
    content: jsonContent({ anyOf: [ref('ServerError'), ref('ExportServerError')] }),
  },
  '504': {
    description: '`export_timeout` or `ffmpeg_timeout`: too long to render in one pass; split it.',
    headers: { ...requestIdHeader },
    content: jsonContent(ref('ExportServerError')),
  },
};

export const editorPaths: Json = {
  '/api/v1/media-studio/projects': {
    post: op({
      id: 'createProject',
      summary: 'Create a project',
      tag: 'Editor',
      scope: 'video-editor:write',
      description: 'Creates a project with one video, `Main video`. A request without a body uses every default.',
      body: createProjectBody,
      bodyRequired: false,
      responses: { '200': ok('The new project.', project) },
    }),
    get: op({
      id: 'listProjects',
      summary: 'List the projects of the key owner',
      tag: 'Editor',
      scope: 'video-editor:read',
      description: 'Most recently updated first, then by id. No pagination.',
      responses: { '200': ok('The projects.', ref('ProjectListReply'), noStoreHeader) },
    }),
  },
  '/api/v1/media-studio/projects/{id}': {
    parameters: [projectId],
    get: op({
      id: 'getProjectState',
      summary: 'Get a project: videos, library and timeline',
      tag: 'Editor',
      scope: 'video-editor:read',
      parameters: queryParams(getProjectQuery),
      responses: { '200': ok('The project state.', ref('ProjectState'), noStoreHeader) },
    }),
    patch: op({
      id: 'renameProject',
      summary: 'Rename a project',
      tag: 'Editor direct edits',
      scope: 'video-editor:write',
      body: renameBody,
      responses: { '200': ok('The renamed project.', project) },
    }),
  },
  '/api/v1/media-studio/projects/{id}/instruct': {
    parameters: [projectId],
    post: op({
      id: 'instruct',
      summary: 'Advance the editor agent one turn',
      tag: 'Editor',
      scope: 'video-editor:write',
      description:
        'Synchronous, one agent step per call, at most one media generation (typically 5-180 s). Cost: 5 credits per turn (never refunded) plus media generation, refunded when nothing is delivered. An instruction or at least one image URL is required (a blank instruction counts as none). 503 also when the language-model credential is not configured.',
      body: instructBody,
      responses: { '200': ok('The turn.', ref('InstructReply')), '402': resp('InsufficientCredits'), ...editorErrors },
    }),
  },
  '/api/v1/media-studio/projects/{id}/export': {
    parameters: [projectId],
    post: {
      ...op({
        id: 'exportVideo',
        summary: 'Export a video of the project as one mp4',
        tag: 'Editor',
        scope: 'video-editor:write',
        description:
          'Stitches the multi-track timeline (video, voice, sfx, music) into one mp4. Synchronous (typically 30 s to 3 min). The export is also added to the library as an asset of kind `export`.',
        body: exportBody,
        bodyRequired: false,
        responses: {},
      }),
      responses: exportResponses,
    },
  },
  '/api/v1/media-studio/projects/{id}/videos': {
    parameters: [projectId],
    post: op({
      id: 'createVideo',
      summary: 'Add a video to a project',
      tag: 'Editor direct edits',
      scope: 'video-editor:write',
      description: 'An empty timeline in the project’s aspect ratio.',
      body: createVideoBody,
      bodyRequired: false,
      responses: { '200': ok('The new video.', ref('VideoReply')) },
    }),
  },
  '/api/v1/media-studio/projects/{id}/videos/{videoId}': {
    parameters: [projectId, pathParam('videoId', 'Video id.')],
    patch: op({
      id: 'renameVideo',
      summary: 'Rename a video',
      tag: 'Editor direct edits',
      scope: 'video-editor:write',
      body: renameBody,
      responses: { '200': ok('The renamed video.', ref('VideoReply')) },
    }),
  },
  '/api/v1/media-studio/projects/{id}/assets': {
    parameters: [projectId],
    post: withUpload(
      op({
        id: 'importAsset',
        summary: "Import media from a public https URL or from one of the caller's own completed jobs",
        description:
          "`{url}` downloads an image, video or audio file; `{job_id, index?}` copies a completed job's result (a video, or image `index`, default 0) from media storage without a download. A job of another user is a 404 (`Job not found`), a job not completed a 409, an index past the results a 400. A `multipart/form-data` body with a `file` field uploads the file, streamed into media storage: its type is read from its bytes (mp4, mov, webm, png, jpeg, webp, mp3, wav, m4a; anything else is a 415 `Unsupported media type: ...`), past `IMPORT_MAX_BYTES` a 413; it is probed like an import (`source: upload`).",
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        body: importAssetBody,
        responses: {
          '200': ok('The imported asset (`source: import`).', ref('AssetReply')),
          '409': errorResponse('The job is not completed.', ref('Error')),
        },
      }),
    ),
  },
  '/api/v1/media-studio/projects/{id}/assets/{assetId}': {
    parameters: [projectId, pathParam('assetId', 'Asset id.')],
    delete: op({
      id: 'deleteAsset',
      summary: 'Delete an asset, its media and every clip using it',
      tag: 'Editor direct edits',
      scope: 'video-editor:write',
      responses: { '200': ok('Deleted.', ref('DeleteAssetReply')) },
    }),
  },
  '/api/v1/media-studio/projects/{id}/clips': {
    parameters: [projectId],
    post: op({
      id: 'addClip',
      summary: 'Place an asset on a track',
      tag: 'Editor direct edits',
      scope: 'video-editor:write',
      body: addClipBody,
      responses: { '200': ok('The new clip.', ref('ClipReply')) },
    }),
  },
  '/api/v1/media-studio/projects/{id}/clips/{clipId}': {
    parameters: [projectId, pathParam('clipId', 'Clip id.')],
    patch: op({
      id: 'moveClip',
      summary: 'Move a clip within its track',
      tag: 'Editor direct edits',
      scope: 'video-editor:write',
      body: moveClipBody,
      responses: { '200': ok('The moved clip.', ref('ClipReply')) },
    }),
    delete: op({
      id: 'removeClip',
      summary: 'Remove a clip (the asset stays)',
      tag: 'Editor direct edits',
      scope: 'video-editor:write',
      responses: { '200': ok('Removed.', ref('RemoveClipReply')) },
    }),
  },
  '/api/v1/media-studio/projects/{id}/context': {
    parameters: [projectId],
    put: op({
      id: 'updateContext',
      summary: "Replace the project's context",
      tag: 'Editor direct edits',
      scope: 'video-editor:write',
      body: updateContextBody,
      responses: { '200': ok('The project.', project) },
    }),
  },
  '/api/v1/media-studio/projects/{id}/aspect-ratio': {
    parameters: [projectId],
    put: op({
      id: 'setAspectRatio',
      summary: 'Set the format of the project and all its videos',
      tag: 'Editor direct edits',
      scope: 'video-editor:write',
      body: setAspectRatioBody,
      responses: { '200': ok('The project.', project) },
    }),
  },
};
