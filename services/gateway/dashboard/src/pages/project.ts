import { api, ApiError, seg } from '../api.js';
import { h, replace, uid } from '../dom.js';
import { dateTime, seconds, time } from '../format.js';
import { fileSafe, fileTimestamp } from '../job-input.js';
import { assetMedia, videoPlayer } from '../media.js';
import { badge, empty, loading, pageHeading } from '../ui.js';
import type { Asset, DashboardProject, DashboardReplies, ThreadTurn, Video } from '../contracts.js';
import type { PageContext } from '../page.js';

type Clip = DashboardProject['clips'][number];
type Track = Clip['track'];

const TRACKS: readonly Track[] = ['video', 'voice', 'sfx', 'music'];
const TRACK_LABELS: Record<Track, string> = { video: 'Video', voice: 'Voice', sfx: 'Sound effects', music: 'Music' };
const STILL_SECONDS = 3; // a still without its own duration plays 3 s (docs/editor-api.md)

/** A short human name for an asset: its prompt, else its kind and source. */
function assetName(asset: Asset | undefined): string {
  const m = asset?.metadata ?? {};
  if (typeof m.prompt === 'string' && m.prompt.trim()) return m.prompt.trim();
  if (typeof m.text === 'string' && m.text.trim()) return m.text.trim();
  if (!asset) return 'missing asset';
  const file = fileName(m.source_url);
  return file || `${asset.kind} (${asset.source})`;
}

/** The last path segment of an imported file's URL ("https://x/y/intro.mp4" -> "intro.mp4"). */
function fileName(url: unknown): string {
  if (typeof url !== 'string') return '';
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last) : '';
  } catch {
    return '';
  }
}

function clipSeconds(clip: Clip, asset: Asset | undefined): number | null {
  if (typeof clip.duration_sec === 'number') return clip.duration_sec;
  const m = asset?.metadata ?? {};
  if (typeof m.duration_sec === 'number') return m.duration_sec;
  return asset && asset.kind === 'image' ? STILL_SECONDS : null;
}

/**
 * A video's timeline: one row per track, its clips in order, each as wide as it plays long on one
 * time scale shared by the tracks (a spacer fills a shorter track up to the longest).
 */
function timeline(video: Video, clips: readonly Clip[], assetsById: Map<string, Asset>): HTMLElement {
  const byTrack = new Map(
    TRACKS.map((track) => [
      track,
      clips.filter((c) => c.video_id === video.id && c.track === track).sort((a, b) => a.idx - b.idx),
    ]),
  );
  const secondsOf = (clip: Clip): number => clipSeconds(clip, assetsById.get(clip.asset_id)) ?? STILL_SECONDS;
  const trackLength = (track: Track): number => (byTrack.get(track) ?? []).reduce((sum, c) => sum + secondsOf(c), 0);
  const longest = Math.max(...TRACKS.map(trackLength));
  const rows = TRACKS.map((track) => {
    const labelId = uid('track');
    const onTrack = byTrack.get(track) ?? [];
    const items = onTrack.map((clip) => {
      const asset = assetsById.get(clip.asset_id);
      const secs = clipSeconds(clip, asset);
      const name = assetName(asset);
      const li = h(
        'li',
        { class: `clip clip-${track}`, title: name },
        asset && asset.kind === 'image' ? h('img', { class: 'clip-thumb', src: asset.url, alt: '' }) : null,
        h('span', { class: 'clip-idx' }, `${clip.idx + 1}.`),
        ' ',
        h('span', { class: 'clip-name' }, name),
        h(
          'span',
          { class: 'clip-meta' },
          [
            secs !== null ? seconds(secs) : null,
            clip.start_sec !== null && clip.start_sec !== undefined ? `starts at ${seconds(clip.start_sec)}` : null,
            clip.volume !== undefined && clip.volume !== 1 ? `volume ${clip.volume}` : null,
          ]
            .filter(Boolean)
            .join(' · '),
        ),
      );
      // Width follows duration (CSSOM styles are allowed by the CSP; style attributes are not).
      li.style.flexGrow = String(secondsOf(clip));
      return li;
    });
    const rest = longest - trackLength(track);
    if (items.length && rest > 0.05) {
      const spacer = h('li', { class: 'clip-spacer', 'aria-hidden': 'true' });
      spacer.style.flexGrow = String(rest);
      items.push(spacer);
    }
    return h(
      'div',
      { class: `track track-${track}` },
      h('span', { class: 'track-name', id: labelId }, TRACK_LABELS[track]),
      h(
        'ol',
        { class: 'clips', 'aria-labelledby': labelId },
        items.length ? items : h('li', { class: 'clip-empty' }, 'No clips'),
      ),
    );
  });
  return h('div', { class: 'timeline', role: 'group', 'aria-label': `Timeline of ${video.name}`, tabindex: '0' }, rows);
}

function thread(turns: readonly ThreadTurn[] | undefined): HTMLElement {
  if (!turns || turns.length === 0) return empty('No messages yet.');
  const ordered = [...turns].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  return h(
    'ol',
    { class: 'thread' },
    ordered.map((t) =>
      h(
        'li',
        { class: 'turn' },
        h(
          'div',
          { class: 'message message-user' },
          h('p', { class: 'message-meta' }, 'You · ', time(t.created_at)),
          h('p', { class: 'message-text' }, t.instruction || '(images only)'),
        ),
        h(
          'div',
          { class: 'message message-agent' },
          h('p', { class: 'message-meta' }, 'Editor ', t.status && t.status !== 'done' ? badge(t.status) : null),
          h('p', { class: 'message-text' }, t.assistant_text || (t.status === 'running' ? 'Working…' : '(no reply)')),
        ),
      ),
    ),
  );
}

const FIT_LABELS: Record<'fit' | 'fill', string> = { fit: 'Fit (bars)', fill: 'Fill (cropped)' };

/**
 * A video's exports, newest first, each named by how it was framed and when it was made, and
 * downloaded as "<project> <video> <time stamp> <fit>.mp4" rather than its asset id.
 */
function exportsList(
  exportsOfVideo: readonly Asset[],
  project: DashboardProject['project'],
  video: Video | null,
): HTMLElement {
  if (exportsOfVideo.length === 0)
    return empty('No exports yet. Export with POST /api/v1/media-studio/projects/:id/export.');
  const newestFirst = [...exportsOfVideo].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  return h(
    'ul',
    { class: 'exports' },
    newestFirst.map((a) => {
      const m = a.metadata;
      const fit = m.fit === 'fill' ? 'fill' : 'fit';
      const when = a.created_at ? dateTime(a.created_at) : null;
      const title = ['Export', FIT_LABELS[fit], when].filter(Boolean).join(' · ');
      const facts = [
        typeof m.duration_sec === 'number' ? seconds(m.duration_sec) : null,
        typeof m.width === 'number' && typeof m.height === 'number' ? `${m.width}×${m.height}` : null,
      ]
        .filter(Boolean)
        .join(', ');
      const details = [when, facts].filter(Boolean).join(' · ');
      const videoPart = video && video.name && video.name !== 'Main video' ? ` ${video.name}` : '';
      const fileName =
        `${fileSafe(`${project.name}${videoPart}`, 60)} ${fileTimestamp(a.created_at)} ${fit}.mp4`.replace(/\s+/g, ' ');
      return h(
        'li',
        { class: 'export card-inner', dataset: { fit } },
        videoPlayer(a.url, title),
        // Read as one line ("Export · Fit (bars) · <time> · 3.0 s, 1280×720"), shown as two.
        h(
          'p',
          { class: 'export-title' },
          h('strong', null, `Export · ${FIT_LABELS[fit]}`),
          details
            ? [h('span', { class: 'visually-hidden' }, ' · '), h('span', { class: 'hint export-details' }, details)]
            : null,
        ),
        h('a', { class: 'button-link', href: a.url, download: fileName }, 'Download mp4'),
      );
    }),
  );
}

function library(assets: readonly Asset[]): HTMLElement {
  if (assets.length === 0) return empty('The library is empty.');
  return h(
    'ul',
    { class: 'library' },
    assets.map((a) => {
      const name = assetName(a);
      const m = a.metadata;
      const facts = [
        a.kind,
        a.source,
        typeof m.duration_sec === 'number' ? seconds(m.duration_sec) : null,
        typeof m.width === 'number' && typeof m.height === 'number' ? `${m.width}×${m.height}` : null,
      ]
        .filter(Boolean)
        .join(' · ');
      return h(
        'li',
        { class: 'asset' },
        h(
          'figure',
          null,
          assetMedia(a, name),
          h('figcaption', null, h('span', { class: 'asset-name' }, name), h('span', { class: 'hint' }, facts)),
        ),
      );
    }),
  );
}

export async function projectPage(ctx: PageContext): Promise<void> {
  const heading = pageHeading('Project');
  const body = h('div', null, loading());
  ctx.root.append(h('p', { class: 'breadcrumb' }, h('a', { href: '#/projects' }, '← All projects')), heading, body);

  let state: DashboardProject;
  try {
    state = await api.get<DashboardReplies['GET /projects/:id']>(`/projects/${seg(ctx.params.id ?? '')}`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && ctx.isCurrent()) {
      heading.textContent = 'Project not found';
      replace(body, h('p', null, 'There is no project with this id among yours.'));
      return;
    }
    throw err;
  }
  if (!ctx.isCurrent()) return;
  const { project, videos, assets, clips, threads } = state;
  heading.textContent = project.name;
  const assetsById = new Map(assets.map((a) => [a.id, a]));
  const exportsAll = assets.filter((a) => a.kind === 'export');
  const videoIds = new Set(videos.map((v) => v.id));

  const videoSections = videos.map((video) => {
    const headingId = uid('video');
    return h(
      'section',
      { class: 'card video-section', 'aria-labelledby': headingId },
      h('h2', { id: headingId }, video.name, ' ', h('span', { class: 'hint' }, video.aspect_ratio)),
      h('h3', null, 'Timeline'),
      timeline(video, clips, assetsById),
      h('h3', null, 'Chat'),
      thread(threads[video.id]),
      h('h3', null, 'Exports'),
      exportsList(
        exportsAll.filter((a) => a.metadata.video_id === video.id),
        project,
        video,
      ),
    );
  });
  const orphanExports = exportsAll.filter(
    (a) => typeof a.metadata.video_id !== 'string' || !videoIds.has(a.metadata.video_id),
  );

  replace(
    body,
    h(
      'p',
      { class: 'lede' },
      `Format ${project.aspect_ratio} · ${videos.length} ${videos.length === 1 ? 'video' : 'videos'} · ${assets.length - exportsAll.length} media in the library`,
    ),
    project.context_md
      ? h(
          'details',
          { class: 'card' },
          h('summary', null, 'Project context'),
          h('pre', { class: 'context' }, project.context_md),
        )
      : null,
    videoSections,
    orphanExports.length
      ? h(
          'section',
          { class: 'card', 'aria-labelledby': 'other-exports' },
          h('h2', { id: 'other-exports' }, 'Other exports'),
          exportsList(orphanExports, project, null),
        )
      : null,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'library-heading' },
      h('h2', { id: 'library-heading' }, 'Media library'),
      library(assets.filter((a) => a.kind !== 'export')),
    ),
  );
}
