import { api, seg } from '../api.js';
import { h } from '../dom.js';
import { seconds } from '../format.js';
import { assetMedia } from '../media.js';
import { announce, empty } from '../ui.js';
import type { Asset, DashboardReplies, Video } from '../contracts.js';
import { assetName } from './names.js';
import type { Uploader } from './upload.js';

/** Where an asset goes on the timeline: pictures on the video track, sound on the voice track. */
const trackOf = (asset: Asset): 'video' | 'voice' => (asset.kind === 'audio' ? 'voice' : 'video');

function assetItem(projectId: string, video: Video, asset: Asset, changed: () => void): HTMLElement {
  const name = assetName(asset);
  const m = asset.metadata;
  const facts = [
    asset.kind,
    asset.source,
    typeof m.duration_sec === 'number' ? seconds(m.duration_sec) : null,
    typeof m.width === 'number' && typeof m.height === 'number' ? `${m.width}×${m.height}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const add = h(
    'button',
    { type: 'button', class: 'secondary', 'aria-label': `Add ${name} to the timeline` },
    'Add to timeline',
  );
  add.addEventListener('click', () => {
    add.disabled = true;
    void api
      .post<DashboardReplies['POST /projects/:id/clips']>(`/projects/${seg(projectId)}/clips`, {
        video_id: video.id,
        track: trackOf(asset),
        asset_id: asset.id,
      })
      .then(() => {
        announce(`${name} was added to the timeline.`);
        changed();
      })
      .catch((err: unknown) => {
        add.disabled = false;
        announce(err instanceof Error ? err.message : 'Could not add the clip.');
      });
  });
  return h(
    'li',
    { class: 'asset', dataset: { assetId: asset.id, kind: asset.kind } },
    h(
      'figure',
      null,
      assetMedia(asset, name),
      h('figcaption', null, h('span', { class: 'asset-name' }, name), h('span', { class: 'hint' }, facts)),
    ),
    add,
  );
}

/**
 * The project's media library: what it holds (each with "Add to timeline"), and a way in: the
 * uploader's `Upload media` zone, or files dropped on the library.
 */
export function libraryPanel(
  projectId: string,
  video: Video,
  assets: readonly Asset[],
  changed: () => void,
  uploads: Uploader,
): HTMLElement {
  const section = h(
    'section',
    { class: 'card library-section', 'aria-label': 'Media library' },
    h('h2', null, 'Media library'),
    uploads.zone,
    assets.length
      ? h(
          'ul',
          { class: 'library' },
          assets.map((a) => assetItem(projectId, video, a, changed)),
        )
      : empty(
          'The library is empty: upload media, use a job’s result (“Use in project” on its page), or ask the editor.',
        ),
  );
  // Files only: a clip dragged along the timeline is no upload.
  const carriesFiles = (event: DragEvent): boolean => event.dataTransfer?.types.includes('Files') ?? false;
  section.addEventListener('dragover', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    section.classList.add('dragging');
  });
  section.addEventListener('dragleave', () => section.classList.remove('dragging'));
  section.addEventListener('drop', (event) => {
    event.preventDefault();
    section.classList.remove('dragging');
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length) uploads.upload(files);
  });
  return section;
}
