import { Router, type Request } from 'express';
import type { Bus } from '@mf/bus';
import type { Validated } from '@mf/catalog';
import { editorRpc, type ProjectRef, type RpcRequestOf } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { requestId } from '@mf/http';
import { authOf, requireScope } from '../auth.middleware';
import {
  validateAddClip,
  validateCreateProject,
  validateCreateVideo,
  validateExport,
  validateGetProjectQuery,
  validateImportAsset,
  validateInstruct,
  validateMoveClip,
  validateRename,
  validateSetAspectRatio,
  validateUpdateContext,
} from '../validators/editor.validators';

export interface EditorRouteOptions {
  /** How long an instruct call may wait for the agent's turn (turns last minutes). */
  instructTimeoutMs: number;
  /** How long an export may take (encoding and upload; the renderer has its own limit). */
  exportTimeoutMs: number;
}

/** The contract's project id shape; anything else cannot exist. */
export const PROJECT_ID = /^prj_[A-Za-z0-9]{1,64}$/;
/** The contract caps the other ids at 100 characters; a longer one cannot exist. */
const REF_MAX = 100;

export const NOT_FOUND = {
  project: 'Project not found',
  video: 'Video not found',
  asset: 'Asset not found',
  clip: 'Clip not found',
} as const;

const READ = 'video-editor:read';
const WRITE = 'video-editor:write';

function valid<T>(result: Validated<T>): T {
  if (!result.ok) throw AppError.badRequest(result.error);
  return result.value;
}

/** An id that cannot exist is a 404 without asking the service (the same answer it gives). */
function ref(raw: string, message: string): string {
  if (raw === '' || raw.length > REF_MAX) throw AppError.notFound(message);
  return raw;
}

/** A video_id of a body or query, checked like a path id. */
function videoRef<T extends { video_id?: string }>(value: T): T {
  if (value.video_id !== undefined) ref(value.video_id, NOT_FOUND.video);
  return value;
}

/** A path parameter; express types them string | string[] for wildcards, which these routes do not use. */
function param(req: Request, name: string): string {
  const v = req.params[name];
  return typeof v === 'string' ? v : '';
}

function projectOf(req: Request): ProjectRef {
  const id = param(req, 'id');
  // The service answers 404 alike for a missing project and another user's; a malformed id is neither.
  if (!PROJECT_ID.test(id)) throw AppError.notFound(NOT_FOUND.project);
  return { user_id: authOf(req).userId, project_id: id };
}

/**
 * The video editor: the contract's create, list, get and instruct, and the direct edits (REST twins
 * of the editor's MCP tools). Every call goes to editor-agent; its reply is sent as is.
 */
export function editorRoutes(bus: Bus, opts: EditorRouteOptions): Router {
  const router = Router();
  type Methods = (typeof editorRpc)['methods'];
  const call = <K extends keyof Methods & string>(req: Request, method: K, request: RpcRequestOf<Methods[K]>, timeoutMs?: number) =>
    bus.rpc(editorRpc, method, request, { correlationId: requestId(req), timeoutMs });

  router.post('/media-studio/projects', requireScope(WRITE), async (req, res) => {
    const body = valid(validateCreateProject(req.body));
    res.json(await call(req, 'createProject', { user_id: authOf(req).userId, ...body }));
  });

  router.get('/media-studio/projects', requireScope(READ), async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await call(req, 'listProjects', { user_id: authOf(req).userId }));
  });

  router.get('/media-studio/projects/:id', requireScope(READ), async (req, res) => {
    const project = projectOf(req);
    const query = videoRef(valid(validateGetProjectQuery(req.query)));
    res.setHeader('Cache-Control', 'no-store');
    res.json(await call(req, 'getProject', { ...project, ...query }));
  });

  router.post('/media-studio/projects/:id/instruct', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    const body = videoRef(valid(validateInstruct(req.body)));
    res.json(await call(req, 'instruct', { ...project, api_key_id: authOf(req).apiKeyId, ...body }, opts.instructTimeoutMs));
  });

  router.post('/media-studio/projects/:id/export', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    const body = videoRef(valid(validateExport(req.body)));
    res.json(await call(req, 'export', { ...project, ...body }, opts.exportTimeoutMs));
  });

  // Direct edits.

  router.patch('/media-studio/projects/:id', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    res.json(await call(req, 'rename', { ...project, ...valid(validateRename(req.body)) }));
  });

  router.post('/media-studio/projects/:id/videos', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    res.json(await call(req, 'createVideo', { ...project, ...valid(validateCreateVideo(req.body)) }));
  });

  router.patch('/media-studio/projects/:id/videos/:videoId', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    const videoId = ref(param(req, 'videoId'), NOT_FOUND.video);
    res.json(await call(req, 'rename', { ...project, video_id: videoId, ...valid(validateRename(req.body)) }));
  });

  router.post('/media-studio/projects/:id/assets', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    res.json(await call(req, 'importAsset', { ...project, ...valid(validateImportAsset(req.body)) }));
  });

  router.delete('/media-studio/projects/:id/assets/:assetId', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    res.json(await call(req, 'deleteAsset', { ...project, asset_id: ref(param(req, 'assetId'), NOT_FOUND.asset) }));
  });

  router.post('/media-studio/projects/:id/clips', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    const body = videoRef(valid(validateAddClip(req.body)));
    ref(body.asset_id, NOT_FOUND.asset);
    res.json(await call(req, 'addClip', { ...project, ...body }));
  });

  router.patch('/media-studio/projects/:id/clips/:clipId', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    const clipId = ref(param(req, 'clipId'), NOT_FOUND.clip);
    res.json(await call(req, 'moveClip', { ...project, clip_id: clipId, ...valid(validateMoveClip(req.body)) }));
  });

  router.delete('/media-studio/projects/:id/clips/:clipId', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    res.json(await call(req, 'removeClip', { ...project, clip_id: ref(param(req, 'clipId'), NOT_FOUND.clip) }));
  });

  router.put('/media-studio/projects/:id/context', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    res.json(await call(req, 'updateContext', { ...project, ...valid(validateUpdateContext(req.body)) }));
  });

  router.put('/media-studio/projects/:id/aspect-ratio', requireScope(WRITE), async (req, res) => {
    const project = projectOf(req);
    res.json(await call(req, 'setAspectRatio', { ...project, ...valid(validateSetAspectRatio(req.body)) }));
  });

  return router;
}
