import { CONTEXT_MD_MAX } from '@mf/contracts';
import type {
  CreateProjectRequest,
  CreateVideoRequest,
  GetProjectRequest,
  ProjectState,
  ProjectSummary,
  Project,
  RenameRequest,
  SetAspectRatioRequest,
  UpdateContextRequest,
  Video,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import { newId } from '../domain/ids';
import {
  assetView,
  clipView,
  DEFAULT_VIDEO_NAME,
  projectSummary,
  projectView,
  videoView,
  type ProjectRow,
  type VideoRow,
} from '../domain/records';
import { listAssets } from '../repositories/assets.repository';
import { listClips } from '../repositories/clips.repository';
import * as projects from '../repositories/projects.repository';
import type { EditorContext } from './context';

export const PROJECT_NOT_FOUND = 'Project not found';
export const VIDEO_NOT_FOUND = 'Video not found';

/** A project of this user; another user's is as absent as a missing one (404). */
export async function requireProject(ctx: EditorContext, userId: number, projectId: string): Promise<ProjectRow> {
  const p = await projects.findOwnedProject(ctx.db, userId, projectId);
  if (!p) throw AppError.notFound(PROJECT_NOT_FOUND);
  return p;
}

/** The given video of the project, or its default video when none is given. */
export async function resolveVideo(ctx: EditorContext, project: ProjectRow, videoId?: string): Promise<VideoRow> {
  const v = videoId
    ? await projects.findVideo(ctx.db, project.id, videoId)
    : await projects.findDefaultVideo(ctx.db, project.id);
  if (!v) throw AppError.notFound(VIDEO_NOT_FOUND);
  return v;
}

/** A new project with its default video, "Main video", in one transaction. */
export async function createProject(ctx: EditorContext, req: CreateProjectRequest): Promise<{ project: Project }> {
  const project = await ctx.db.transaction(async (trx) => {
    const p = await projects.insertProject(trx, {
      id: newId('prj'),
      user_id: req.user_id,
      name: req.name,
      description: req.description || null,
      aspect_ratio: req.aspect_ratio,
    });
    await projects.insertVideo(trx, {
      id: newId('vid'),
      project_id: p.id,
      name: DEFAULT_VIDEO_NAME,
      aspect_ratio: p.aspect_ratio,
      is_default: true,
    });
    return p;
  });
  return { project: projectView(project) };
}

export async function listProjects(ctx: EditorContext, userId: number): Promise<{ projects: ProjectSummary[] }> {
  return { projects: (await projects.listProjects(ctx.db, userId)).map(projectSummary) };
}

/** The project, its videos, its library and its clips (of one video when video_id is given). */
export async function getProjectState(ctx: EditorContext, req: GetProjectRequest): Promise<ProjectState> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  if (req.video_id) await resolveVideo(ctx, p, req.video_id);
  const [videos, assets, clips] = await Promise.all([
    projects.listVideos(ctx.db, p.id),
    listAssets(ctx.db, p.id),
    listClips(ctx.db, p.id, req.video_id),
  ]);
  return {
    project: { id: p.id, name: p.name, aspect_ratio: p.aspect_ratio, context_md: p.context_md },
    videos: videos.map(videoView),
    assets: assets.map((a) => assetView(a, ctx.settings.publicBaseUrl)),
    clips: clips.map(clipView),
  };
}

export async function createVideo(ctx: EditorContext, req: CreateVideoRequest): Promise<{ video: Video }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  const v = await projects.insertVideo(ctx.db, {
    id: newId('vid'),
    project_id: p.id,
    name: req.name,
    aspect_ratio: p.aspect_ratio,
    is_default: false,
  });
  await projects.touchProject(ctx.db, p.id);
  return { video: videoView(v) };
}

export async function rename(ctx: EditorContext, req: RenameRequest): Promise<{ project: Project } | { video: Video }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  if (req.video_id) {
    const v = await resolveVideo(ctx, p, req.video_id);
    const renamed = await projects.updateVideo(ctx.db, v.id, { name: req.name });
    await projects.touchProject(ctx.db, p.id);
    return { video: videoView(renamed) };
  }
  return { project: projectView(await projects.updateProject(ctx.db, p.id, { name: req.name })) };
}

export async function updateContext(ctx: EditorContext, req: UpdateContextRequest): Promise<{ project: Project }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  return { project: projectView(await projects.updateProject(ctx.db, p.id, { context_md: req.context_md })) };
}

/** Appends a paragraph to the project's context (the agent's append_context). */
export async function appendContext(
  ctx: EditorContext,
  userId: number,
  projectId: string,
  text: string,
): Promise<Project> {
  const p = await requireProject(ctx, userId, projectId);
  const trimmed = text.trim();
  if (!trimmed) throw AppError.badRequest('text must not be empty');
  const context = p.context_md ? `${p.context_md.replace(/\s+$/, '')}\n\n${trimmed}` : trimmed;
  if (context.length > CONTEXT_MD_MAX)
    throw AppError.badRequest(`context_md would exceed ${CONTEXT_MD_MAX} characters`);
  return projectView(await projects.updateProject(ctx.db, p.id, { context_md: context }));
}

/**
 * Sets the format of the project and of every one of its videos: a project is one format, and
 * export frames each video to it.
 */
export async function setAspectRatio(ctx: EditorContext, req: SetAspectRatioRequest): Promise<{ project: Project }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  const updated = await ctx.db.transaction(async (trx) => {
    for (const v of await projects.listVideos(trx, p.id))
      await projects.updateVideo(trx, v.id, { aspect_ratio: req.aspect_ratio });
    return projects.updateProject(trx, p.id, { aspect_ratio: req.aspect_ratio });
  });
  return { project: projectView(updated) };
}
