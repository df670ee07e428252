import { ApiError, seg } from '../api.js';
import { h, uid } from '../dom.js';
import type { DashboardReplies } from '../contracts.js';
import { postWithProgress } from '../upload-request.js';

/** The file types an upload takes (the server reads the type from the bytes; this only filters the picker). */
const ACCEPT =
  'video/mp4,video/quicktime,video/webm,image/png,image/jpeg,image/webp,audio/mpeg,audio/wav,audio/mp4,.m4a,.mov';

/** How many of the values a bar went through it keeps in data-values (for a look at how it rose). */
const VALUES_KEPT = 50;

export interface Uploader {
  /** The `Upload media` input, its hint, the status line and the progress bar. */
  zone: HTMLElement;
  upload(files: readonly File[]): void;
}

/** A progress bar of whole percents that keeps the values it showed, in order, in data-values. */
function progressBar(): { bar: HTMLProgressElement; set(percent: number): void; reset(): void } {
  const bar = h('progress', { class: 'upload-progress', max: 100, value: 0, 'aria-label': 'Upload progress' });
  bar.hidden = true;
  let seen: number[] = [];
  const set = (percent: number): void => {
    const value = Math.max(0, Math.min(100, Math.floor(percent)));
    bar.value = value;
    bar.setAttribute('aria-valuenow', String(value));
    if (seen[seen.length - 1] === value) return;
    seen = [...seen, value].slice(-VALUES_KEPT);
    bar.dataset.values = seen.join(' ');
  };
  const reset = (): void => {
    seen = [];
    bar.setAttribute('aria-valuemin', '0');
    bar.setAttribute('aria-valuemax', '100');
    set(0);
    bar.hidden = false;
  };
  return { bar, set, reset };
}

/**
 * The way media gets into a project's library: the `Upload media` file input (and files dropped on
 * the library, through upload()). One file at a time as multipart POST .../assets; the bar follows
 * the bytes sent of the whole batch, then the server reads and checks each file. The zone outlives
 * the library's redraws, so an upload's bar and status stay while the library changes around it.
 */
export function uploader(projectId: string, changed: () => void): Uploader {
  const inputId = uid('upload');
  const status = h('p', { class: 'upload-status', role: 'status' });
  const progress = progressBar();
  const input = h('input', { id: inputId, type: 'file', accept: ACCEPT, multiple: true, class: 'upload-input' });
  let busy: Promise<void> = Promise.resolve();

  const run = async (files: readonly File[]): Promise<void> => {
    const total = files.reduce((sum, f) => sum + f.size, 0) || 1;
    let done = 0;
    let added = 0;
    progress.reset();
    for (const file of files) {
      status.textContent = `Uploading ${file.name}…`;
      status.dataset.state = 'uploading';
      const form = new FormData();
      form.append('file', file, file.name);
      try {
        await postWithProgress<DashboardReplies['POST /projects/:id/assets']>(
          `/projects/${seg(projectId)}/assets`,
          form,
          // The body is the file plus a little multipart framing: its share of the file's bytes.
          (sent, of) => progress.set((100 * (done + (file.size * sent) / of)) / total),
        );
        added++;
        done += file.size;
        progress.set((100 * done) / total);
      } catch (err) {
        status.textContent = `${file.name}: ${err instanceof ApiError ? err.message : 'the upload failed.'}`;
        status.dataset.state = 'failed';
        progress.bar.hidden = true;
        if (added) changed();
        return;
      }
    }
    progress.set(100);
    status.textContent = `Uploaded ${added === 1 ? files[0].name : `${added} files`}.`;
    status.dataset.state = 'done';
    changed();
  };
  // Uploads one batch after another: one bar, one status line.
  const upload = (files: readonly File[]): void => {
    busy = busy.then(() => run(files));
  };

  input.addEventListener('change', () => {
    const files = [...(input.files ?? [])];
    input.value = '';
    if (files.length) upload(files);
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
    progress.bar,
    status,
  );
  return { zone, upload };
}
