import { api, ApiError, seg } from '../api.js';
import { h, replace, uid } from '../dom.js';
import { announce, loading, pageHeading, showError } from '../ui.js';
import type { DashboardProject, DashboardReplies, Video } from '../contracts.js';
import type { PageContext } from '../page.js';
import { chatPanel } from '../studio/chat.js';
import { exportControl, exportsList } from '../studio/exports.js';
import { libraryPanel } from '../studio/library.js';
import type { Clip } from '../studio/names.js';
import { timelineRegion, withMoved } from '../studio/timeline.js';
import { uploader } from '../studio/upload.js';

type Project = DashboardProject['project'];

const load = (id: string) => api.get<DashboardReplies['GET /projects/:id']>(`/projects/${seg(id)}`);

/**
 * The studio: a project's video worked on in one place. The chat streams each editor turn; the
 * timeline moves and removes clips; the library takes uploads and places media; Export renders
 * in the background. Every change redraws the timeline, library and exports from the server's
 * state (the chat stays as it is, with its live turns).
 */
export async function projectPage(ctx: PageContext): Promise<void> {
  const heading = pageHeading('Project');
  const body = h('div', null, loading());
  ctx.root.append(h('p', { class: 'breadcrumb' }, h('a', { href: '#/projects' }, '← All projects')), heading, body);

  const projectId = ctx.params.id ?? '';
  let state: DashboardProject;
  try {
    state = await load(projectId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && ctx.isCurrent()) {
      heading.textContent = 'Project not found';
      replace(body, h('p', null, 'There is no project with this id among yours.'));
      return;
    }
    throw err;
  }
  if (!ctx.isCurrent()) return;
  heading.textContent = state.project.name;
  const videoId = new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('video');
  const video = state.videos.find((v) => v.id === videoId) ?? state.videos[0];
  if (!video) {
    replace(body, h('p', null, 'This project has no video.'));
    return;
  }

  const lede = h('p', { class: 'lede' });
  const timelineBox = h('div', { class: 'timeline-box', 'aria-busy': 'false' });
  const libraryBox = h('div');
  const exportsBox = h('div', { class: 'exports-box' });
  // Made once: an upload's progress and status stay through the library's redraws.
  const uploads = uploader(projectId, () => refresh());

  const draw = (s: DashboardProject): void => {
    state = s;
    const assetsById = new Map(s.assets.map((a) => [a.id, a]));
    const exportsAll = s.assets.filter((a) => a.kind === 'export');
    replace(
      lede,
      `Format ${s.project.aspect_ratio} · ${s.videos.length} ${s.videos.length === 1 ? 'video' : 'videos'} · ${s.assets.length - exportsAll.length} media in the library`,
    );
    replace(
      timelineBox,
      timelineRegion(video, s.clips, assetsById, {
        move: (clip, idx) => void reorder(clip, idx),
        remove: (clip) =>
          void edit(() => api.del(`/projects/${seg(projectId)}/clips/${seg(clip.id)}`), 'Clip removed.'),
      }),
    );
    replace(
      libraryBox,
      libraryPanel(
        projectId,
        video,
        s.assets.filter((a) => a.kind !== 'export'),
        refresh,
        uploads,
      ),
    );
    replace(
      exportsBox,
      exportsList(
        exportsAll.filter((a) => a.metadata.video_id === video.id || typeof a.metadata.video_id !== 'string'),
        s.project,
        video,
      ),
    );
  };

  let refreshing: Promise<void> | null = null;
  // Edits made on this page: a reload asked for before the latest one began may answer with the
  // order before it, so it is not drawn (the edit's own reload follows).
  let edits = 0;
  // Edits and reloads under way: the timeline is aria-busy until the last one is drawn.
  let pending = 0;
  const busy = (by: number): void => {
    pending += by;
    timelineBox.setAttribute('aria-busy', String(pending > 0));
  };
  function refresh(): void {
    busy(1);
    // One reload at a time; a change made meanwhile is in the answer that follows it.
    refreshing = (refreshing ?? Promise.resolve()).then(async () => {
      const asked = edits;
      try {
        const s = await load(projectId);
        if (ctx.isCurrent() && asked === edits) draw(s);
      } catch (err) {
        if (ctx.isCurrent()) showError(err);
      } finally {
        busy(-1);
      }
    });
  }
  /** A move redraws from the server's answer; a refused one puts the timeline back as the server has it. */
  async function reorder(clip: Clip, idx: number): Promise<void> {
    edits++;
    busy(1);
    try {
      const { clip: moved } = await api.patch<DashboardReplies['PATCH /projects/:id/clips/:clipId']>(
        `/projects/${seg(projectId)}/clips/${seg(clip.id)}`,
        { idx },
      );
      if (ctx.isCurrent()) draw({ ...state, clips: withMoved(state.clips, moved) });
      announce('Clip moved.');
    } catch (err) {
      if (ctx.isCurrent()) draw(state);
      showError(err);
    }
    refresh();
    busy(-1);
  }
  async function edit(change: () => Promise<unknown>, done: string): Promise<void> {
    edits++;
    busy(1);
    try {
      await change();
      announce(done);
    } catch (err) {
      showError(err);
    }
    refresh();
    busy(-1);
  }

  draw(state);
  replace(
    body,
    lede,
    state.project.context_md
      ? h(
          'details',
          { class: 'card' },
          h('summary', null, 'Project context'),
          h('pre', { class: 'context' }, state.project.context_md),
        )
      : null,
    state.videos.length > 1 ? videoPicker(state.videos, video, ctx) : null,
    studio(state.project, video, state.threads[video.id] ?? [], { timelineBox, exportsBox, refresh, ctx }),
    libraryBox,
  );
}

function videoPicker(videos: readonly Video[], current: Video, ctx: PageContext): HTMLElement {
  const id = uid('video');
  const select = h(
    'select',
    { id },
    videos.map((v) => h('option', { value: v.id, selected: v.id === current.id }, v.name)),
  );
  select.addEventListener('change', () =>
    ctx.navigate(`#/projects/${seg(ctx.params.id ?? '')}?video=${seg(select.value)}`),
  );
  return h('p', { class: 'form-row' }, h('label', { for: id }, 'Video'), select);
}

function studio(
  project: Project,
  video: Video,
  turns: DashboardProject['threads'][string],
  parts: { timelineBox: HTMLElement; exportsBox: HTMLElement; refresh: () => void; ctx: PageContext },
): HTMLElement {
  const headingId = uid('studio');
  return h(
    'section',
    { class: 'card studio', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, video.name, ' ', h('span', { class: 'hint' }, video.aspect_ratio)),
    h(
      'div',
      { class: 'studio-grid' },
      h('div', { class: 'studio-chat' }, chatPanel(project.id, video, turns, parts.refresh)),
      h(
        'div',
        { class: 'studio-work' },
        parts.timelineBox,
        h(
          'section',
          { class: 'export-section', 'aria-label': 'Exports' },
          h('h3', null, 'Exports'),
          exportControl(project, video, (fn) => parts.ctx.onCleanup(fn), parts.refresh),
          parts.exportsBox,
        ),
      ),
    ),
  );
}
