import { api, ApiError, seg } from '../api.js';
import { h, uid } from '../dom.js';
import { seconds } from '../format.js';
import { assetMedia } from '../media.js';
import { announce, empty } from '../ui.js';
import type { Asset, DashboardReplies, Video } from '../contracts.js';
import { assetName } from './names.js';

/** The file types an upload takes (the server reads the type from the bytes; this only filters the picker). */
const ACCEPT =
  'video/mp4,video/quicktime,video/webm,image/png,image/jpeg,image/webp,audio/mpeg,audio/wav,audio/mp4,.m4a,.mov';

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
 * `Upload media` file input, or files dropped on the library (multipart POST .../assets, one file
 * at a time; the server reads and checks each).
 */
export function libraryPanel(
  projectId: string,
  video: Video,
  assets: readonly Asset[],
  changed: () => void,
): HTMLElement {
  const inputId = uid('upload');
  const status = h('p', { class: 'upload-status', role: 'status' });
  const input = h('input', { id: inputId, type: 'file', accept: ACCEPT, multiple: true, class: 'upload-input' });
  const upload = async (files: readonly File[]): Promise<void> => {
    let added = 0;
    for (const file of files) {
      status.textContent = `Uploading ${file.name}…`;
      status.dataset.state = 'uploading';
      const form = new FormData();
      form.append('file', file, file.name);
      try {
        await api.post<DashboardReplies['POST /projects/:id/assets']>(`/projects/${seg(projectId)}/assets`, form);
        added++;
      } catch (err) {
        status.textContent = `${file.name}: ${err instanceof ApiError ? err.message : 'the upload failed.'}`;
        status.dataset.state = 'failed';
        if (added) changed();
        return;
      }
    }
    status.textContent = `Uploaded ${added === 1 ? files[0].name : `${added} files`}.`;
    status.dataset.state = 'done';
    changed();
  };
  input.addEventListener('change', () => {
    const files = [...(input.files ?? [])];
    input.value = '';
    if (files.length) void upload(files);
  });
  const zone = h(
    'div',
    { class: 'drop-zone' },
    h('label', { for: inputId }, 'Upload media'),
    input,
    h(
      'p',
      { class: 'hint' },
      'Or drop video, image or audio files here (mp4, mov, webm, png, jpeg, webp, mp3, wav, m4a).',
    ),
    status,
  );
  const section = h(
    'section',
    { class: 'card library-section', 'aria-label': 'Media library' },
    h('h2', null, 'Media library'),
    zone,
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
  section.addEventListener('dragover', (event) => {
    event.preventDefault();
    section.classList.add('dragging');
  });
  section.addEventListener('dragleave', () => section.classList.remove('dragging'));
  section.addEventListener('drop', (event) => {
    event.preventDefault();
    section.classList.remove('dragging');
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length) void upload(files);
  });
  return section;
}
