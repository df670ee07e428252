import type { Bus } from '@mf/bus';
import { editorRpc, type InstructRequest, type ProjectRef, type RpcReplyOf, type RpcRequestOf } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { scopeOf, type OperationId } from '../../operations/table';
import { assertScope, type AuthContext, type EditorCaller } from '../auth/auth-context';
import {
  validateAddClip,
  validateCreateProject,
  validateCreateVideo,
  validateExport,
  validateGetProjectQuery,
  validateInstruct,
  validateMoveClip,
  validateRename,
  validateSetAspectRatio,
  validateUpdateContext,
} from '../validation/editor.validators';
import { valid } from './validated';

/**
 * The video editor's operations, one function each, shared by the REST routes and the MCP tools:
 * the scope (403, checked before anything else), the ids (404 for one that cannot exist, without
 * asking the service), the body (400 with the messages of docs/editor-api.md), then one RPC to
 * editor-agent whose reply (or error) is returned as is.
 */

/** The contract's project id shape; anything else cannot exist. */
export const PROJECT_ID = /^prj_[A-Za-z0-9]{1,64}$/;
/**
 * The shapes of the other ids editor-agent issues (its domain/ids.ts: a prefix and random letters
 * and digits). Anything else cannot exist: it is a 404 without a query, so a NUL, a traversal or
 * an injection attempt never reaches the database.
 */
export const RECORD_IDS = {
  video: /^vid_[A-Za-z0-9]{1,64}$/,
  asset: /^ast_[A-Za-z0-9]{1,64}$/,
  clip: /^clp_[A-Za-z0-9]{1,64}$/,
} as const;
type RecordKind = keyof typeof RECORD_IDS;

export const NOT_FOUND = {
  project: 'Project not found',
  video: 'Video not found',
  asset: 'Asset not found',
  clip: 'Clip not found',
} as const;

export interface EditorCallOptions {
  correlationId?: string;
  /** Instruct and export take minutes: their callers pass the configured limit. */
  timeoutMs?: number;
}

type Methods = (typeof editorRpc)['methods'];
export type Reply<K extends keyof Methods> = RpcReplyOf<Methods[K]>;

export function call<K extends keyof Methods>(
  bus: Bus,
  method: K,
  request: RpcRequestOf<Methods[K]>,
  opts: EditorCallOptions,
): Promise<Reply<K>> {
  return bus.rpc(editorRpc, method, request, { correlationId: opts.correlationId, timeoutMs: opts.timeoutMs });
}

/** An id that cannot exist is a 404 without asking the service (the same answer it gives). */
function ref(raw: unknown, kind: RecordKind): string {
  if (typeof raw !== 'string' || !RECORD_IDS[kind].test(raw)) throw AppError.notFound(NOT_FOUND[kind]);
  return raw;
}

/** A video_id of a body or query, checked like a path id. */
export function videoRef<T extends { video_id?: string }>(value: T): T {
  if (value.video_id !== undefined) ref(value.video_id, 'video');
  return value;
}

export function projectRef(owner: Pick<AuthContext, 'userId'>, projectId: unknown): ProjectRef {
  // The service answers 404 alike for a missing project and another user's; a malformed id is neither.
  if (typeof projectId !== 'string' || !PROJECT_ID.test(projectId)) throw AppError.notFound(NOT_FOUND.project);
  return { user_id: owner.userId, project_id: projectId };
}

/** The dashboard's list of the signed-in user's projects. */
export function listProjectsOf(bus: Bus, userId: number, opts: EditorCallOptions = {}): Promise<Reply<'listProjects'>> {
  return call(bus, 'listProjects', { user_id: userId }, opts);
}

/** The dashboard's project page: the state with every video's chat thread. */
export async function projectWithThreads(
  bus: Bus,
  userId: number,
  projectId: unknown,
  opts: EditorCallOptions = {},
): Promise<Reply<'getProject'> & Reply<'threads'>> {
  const project = projectRef({ userId }, projectId);
  const [state, { threads }] = await Promise.all([
    call(bus, 'getProject', project, opts),
    call(bus, 'threads', project, opts),
  ]);
  return { ...state, threads };
}

/** A new project with its default video ("Main video"). */
export async function createProject(
  bus: Bus,
  auth: EditorCaller,
  body: unknown,
  opts: EditorCallOptions = {},
): Promise<Reply<'createProject'>> {
  assertScope(auth, scopeOf('createProject'));
  return call(bus, 'createProject', { user_id: auth.userId, ...valid(validateCreateProject(body)) }, opts);
}

/** Every project of the caller's user, most recently updated first. */
export async function listProjects(
  bus: Bus,
  auth: EditorCaller,
  opts: EditorCallOptions = {},
): Promise<Reply<'listProjects'>> {
  assertScope(auth, scopeOf('listProjects'));
  return call(bus, 'listProjects', { user_id: auth.userId }, opts);
}

/** One agent turn (5 credits plus any media generation), billed to the calling key. */
export async function instruct(
  bus: Bus,
  auth: EditorCaller,
  projectId: unknown,
  body: unknown,
  opts: EditorCallOptions = {},
): Promise<Reply<'instruct'>> {
  return call(bus, 'instruct', instructRequest(auth, projectId, body), opts);
}

/** An instruct's checks (403, 404 for an id that cannot exist, 400) and its RPC request. */
export function instructRequest(auth: EditorCaller, projectId: unknown, body: unknown): InstructRequest {
  assertScope(auth, scopeOf('instruct'));
  const project = projectRef(auth, projectId);
  return { ...project, api_key_id: auth.apiKeyId, ...videoRef(valid(validateInstruct(body))) };
}

/**
 * An operation on one project: the scope (403), the project id (404 for one that cannot exist),
 * then `request` makes the RPC request (its own checks, in the contract's order), then one RPC.
 */
function onProject<K extends keyof Methods>(
  op: OperationId,
  method: K,
  request: (project: ProjectRef, body: unknown) => RpcRequestOf<Methods[K]>,
) {
  return (bus: Bus, auth: EditorCaller, projectId: unknown, body: unknown, opts: EditorCallOptions = {}) => {
    assertScope(auth, scopeOf(op));
    return call(bus, method, request(projectRef(auth, projectId), body), opts);
  };
}

/** An operation on a record of a project (a video, asset or clip): its id is checked after the project's. */
function onRecord<K extends keyof Methods>(
  op: OperationId,
  method: K,
  kind: RecordKind,
  request: (project: ProjectRef, id: string) => RpcRequestOf<Methods[K]>,
) {
  return (bus: Bus, auth: EditorCaller, projectId: unknown, recordId: unknown, opts: EditorCallOptions = {}) => {
    assertScope(auth, scopeOf(op));
    const project = projectRef(auth, projectId);
    return call(bus, method, request(project, ref(recordId, kind)), opts);
  };
}

/** The same with a body, checked after both ids. */
function onRecordWithBody<K extends keyof Methods>(
  op: OperationId,
  method: K,
  kind: RecordKind,
  request: (project: ProjectRef, id: string, body: unknown) => RpcRequestOf<Methods[K]>,
) {
  return (
    bus: Bus,
    auth: EditorCaller,
    projectId: unknown,
    recordId: unknown,
    body: unknown,
    opts: EditorCallOptions = {},
  ) => {
    assertScope(auth, scopeOf(op));
    const project = projectRef(auth, projectId);
    return call(bus, method, request(project, ref(recordId, kind), body), opts);
  };
}

/** A project's videos, assets and clips; the query's `video_id` narrows the clips to one video. */
export const getProjectState = onProject('getProjectState', 'getProject', (project, query) => ({
  ...project,
  ...videoRef(valid(validateGetProjectQuery(query as Record<string, unknown>))),
}));

/** Renders a video's timeline into one mp4 (synchronous; errors of docs/export.md). */
export const exportVideo = onProject('exportVideo', 'export', (project, body) => ({
  ...project,
  ...videoRef(valid(validateExport(body))),
}));

// Direct edits: no agent turn, no credits.

export const createVideo = onProject('createVideo', 'createVideo', (project, body) => ({
  ...project,
  ...valid(validateCreateVideo(body)),
}));

export const renameProject = onProject('renameProject', 'rename', (project, body) => ({
  ...project,
  ...valid(validateRename(body)),
}));

export const renameVideo = onRecordWithBody('renameVideo', 'rename', 'video', (project, videoId, body) => ({
  ...project,
  video_id: videoId,
  ...valid(validateRename(body)),
}));

export const deleteAsset = onRecord('deleteAsset', 'deleteAsset', 'asset', (project, assetId) => ({
  ...project,
  asset_id: assetId,
}));

export const addClip = onProject('addClip', 'addClip', (project, body) => {
  const clip = videoRef(valid(validateAddClip(body)));
  ref(clip.asset_id, 'asset');
  return { ...project, ...clip };
});

export const moveClip = onRecordWithBody('moveClip', 'moveClip', 'clip', (project, clipId, body) => ({
  ...project,
  clip_id: clipId,
  ...valid(validateMoveClip(body)),
}));

export const removeClip = onRecord('removeClip', 'removeClip', 'clip', (project, clipId) => ({
  ...project,
  clip_id: clipId,
}));

export const updateContext = onProject('updateContext', 'updateContext', (project, body) => ({
  ...project,
  ...valid(validateUpdateContext(body)),
}));

export const setAspectRatio = onProject('setAspectRatio', 'setAspectRatio', (project, body) => ({
  ...project,
  ...valid(validateSetAspectRatio(body)),
}));
