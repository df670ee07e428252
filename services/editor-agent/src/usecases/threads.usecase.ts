import type { ProjectRef, ThreadsReply, ThreadTurn } from '@mf/contracts';
import * as projects from '../repositories/projects.repository';
import { recentTurnsOfVideos } from '../repositories/turns.repository';
import type { EditorContext } from './context';
import { requireProject } from './projects.usecase';

/** How many turns of each video the dashboard shows (the newest ones). */
export const THREAD_TURNS_SHOWN = 100;

/** The chat thread of every video of the user's project; another user's project is a 404. */
export async function projectThreads(ctx: EditorContext, ref: ProjectRef): Promise<ThreadsReply> {
  const project = await requireProject(ctx, ref.user_id, ref.project_id);
  const videos = await projects.listVideos(ctx.db, project.id);
  const turns = await recentTurnsOfVideos(
    ctx.db,
    videos.map((v) => v.id),
    THREAD_TURNS_SHOWN,
  );
  const threads: Record<string, ThreadTurn[]> = Object.fromEntries(videos.map((v) => [v.id, []]));
  for (const t of turns) {
    threads[t.video_id]?.push({
      id: t.id,
      instruction: t.instruction,
      assistant_text: t.assistant_text,
      status: t.status,
      created_at: t.created_at.toISOString(),
    });
  }
  return { threads };
}
