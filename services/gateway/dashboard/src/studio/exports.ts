import { api, ApiError, seg } from '../api.js';
import { h, replace, uid } from '../dom.js';
import { dateTime, seconds } from '../format.js';
import { fileSafe, fileTimestamp } from '../job-input.js';
import { videoPlayer } from '../media.js';
import { poller } from '../poll.js';
import { announce, empty } from '../ui.js';
import type { Asset, DashboardProject, DashboardReplies, ExportStatus, Video } from '../contracts.js';

const FIT_LABELS: Record<'fit' | 'fill', string> = { fit: 'Fit (bars)', fill: 'Fill (cropped)' };
const POLL_MS = 1000;

/** "<project> <video> <time stamp> <fit>.mp4", rather than the asset id. */
function downloadName(project: DashboardProject['project'], video: Video | null, at: string, fit: string): string {
  const videoPart = video && video.name && video.name !== 'Main video' ? ` ${video.name}` : '';
  return `${fileSafe(`${project.name}${videoPart}`, 60)} ${fileTimestamp(at)} ${fit}.mp4`.replace(/\s+/g, ' ');
}

/**
 * A video's exports, newest first, each named by how it was framed and when it was made, and
 * downloaded under a readable name.
 */
export function exportsList(
  exportsOfVideo: readonly Asset[],
  project: DashboardProject['project'],
  video: Video | null,
): HTMLElement {
  if (exportsOfVideo.length === 0) return empty('No exports yet.');
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
        h(
          'a',
          { class: 'button-link', href: a.url, download: downloadName(project, video, a.created_at, fit) },
          'Download mp4',
        ),
      );
    }),
  );
}

/**
 * The Export button of a video: starts a background export, shows its progress bar while it
 * renders (polling GET .../exports/:exportId), then a player of the result with Download; `done`
 * redraws the list of earlier exports. An export still rendering when the page opens is followed too.
 */
export function exportControl(
  project: DashboardProject['project'],
  video: Video,
  onCleanup: (fn: () => void) => void,
  done: () => void,
): HTMLElement {
  const fitId = uid('fit');
  const fit = h(
    'select',
    { id: fitId },
    h('option', { value: 'fit' }, FIT_LABELS.fit),
    h('option', { value: 'fill' }, FIT_LABELS.fill),
  );
  const button = h('button', { type: 'button', class: 'primary' }, 'Export');
  const out = h('div', { class: 'export-run', 'aria-live': 'polite' });
  const base = `/projects/${seg(project.id)}`;
  let current: ExportStatus | null = null;
  const poll = poller({
    intervalMs: POLL_MS,
    shouldContinue: () => current?.status === 'rendering',
    tick: async () => {
      if (!current) return;
      show(
        await api.get<DashboardReplies['GET /projects/:id/exports/:exportId']>(
          `${base}/exports/${seg(current.export_id)}`,
        ),
      );
    },
    onError: (err) => {
      button.disabled = false;
      replace(
        out,
        h('p', { class: 'error-text' }, err instanceof Error ? err.message : 'The export could not be followed.'),
      );
    },
  });
  onCleanup(() => poll.stop());

  const show = (status: ExportStatus): void => {
    current = status;
    out.dataset.status = status.status;
    if (status.status === 'rendering') {
      replace(
        out,
        h('label', { for: `${fitId}-progress` }, `Rendering… ${status.progress}%`),
        h('progress', { id: `${fitId}-progress`, max: 100, value: status.progress, 'aria-label': 'Export progress' }),
      );
      return;
    }
    button.disabled = false;
    if (status.status === 'failed') {
      const e = status.error;
      replace(out, h('p', { class: 'error-text' }, `The export failed: ${e?.message ?? e?.error ?? 'unknown error'}`));
      announce('The export failed.');
      return;
    }
    const url = status.video_url ?? '';
    replace(
      out,
      h(
        'p',
        null,
        h('strong', null, 'Export ready'),
        status.duration_sec !== null ? ` · ${seconds(status.duration_sec)}` : null,
      ),
      videoPlayer(url, `Export of ${video.name}`, { large: true }),
      h(
        'p',
        null,
        h(
          'a',
          {
            class: 'button-link',
            href: url,
            download: downloadName(project, video, status.completed_at ?? status.created_at, fit.value),
          },
          'Download',
        ),
      ),
    );
    announce('The export is ready.');
    done();
  };

  button.addEventListener('click', () => {
    button.disabled = true;
    replace(out, h('p', null, 'Starting the export…'));
    void api
      .post<DashboardReplies['POST /projects/:id/export']>(`${base}/export`, { video_id: video.id, fit: fit.value })
      .then((accepted) => {
        show({
          ...accepted,
          project_id: project.id,
          video_id: video.id,
          asset_id: null,
          video_url: null,
          duration_sec: null,
          error: null,
          created_at: new Date().toISOString(),
          completed_at: null,
        });
        poll.start();
      })
      .catch((err: unknown) => {
        button.disabled = false;
        replace(
          out,
          h('p', { class: 'error-text' }, err instanceof ApiError ? err.message : 'The export could not start.'),
        );
      });
  });

  // An export of this video still rendering (started before the page opened) is followed as well.
  void api
    .get<DashboardReplies['GET /projects/:id/exports']>(`${base}/exports`)
    .then(({ exports }) => {
      const running = exports.find((e) => e.video_id === video.id && e.status === 'rendering');
      if (running && !current) {
        button.disabled = true;
        show(running);
        poll.start();
      }
    })
    .catch(() => undefined);

  return h(
    'div',
    { class: 'export-control' },
    h('div', { class: 'form-row' }, h('label', { for: fitId }, 'Framing'), fit, button),
    out,
  );
}
