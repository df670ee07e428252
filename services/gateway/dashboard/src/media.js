import { h } from './dom.js';

// Result media is served by the gateway at /media/... (same origin, so CSP media-src/img-src 'self').

export function videoPlayer(url, label, { large = false } = {}) {
  return h('video', {
    class: large ? 'player player-large' : 'player',
    controls: true,
    preload: 'metadata',
    playsinline: true,
    src: url,
    'aria-label': label,
  });
}

export function audioPlayer(url, label) {
  return h('audio', { class: 'audio-player', controls: true, preload: 'metadata', src: url, 'aria-label': label });
}

/** Thumbnails that open the full image. */
export function imageThumbs(urls, labelPrefix) {
  return h(
    'ul',
    { class: 'thumbs' },
    urls.map((url, i) =>
      h(
        'li',
        null,
        h(
          'a',
          { href: url, target: '_blank', rel: 'noopener' },
          h('img', {
            src: url,
            alt: `${labelPrefix}, image ${i + 1} of ${urls.length} (opens in a new tab)`,
            loading: 'lazy',
          }),
        ),
      ),
    ),
  );
}

const PLACEHOLDER = { processing: 'Rendering…', failed: 'Failed: no result', cancelled: 'Cancelled: no result' };

/** A job's result: a <video> for videos, thumbnails for images, a note otherwise. */
export function jobPreview(job, options = {}) {
  const result = job.result;
  const label = `Result of job ${job.job_id}`;
  if (job.status === 'completed' && result && typeof result.video === 'string')
    return videoPlayer(result.video, label, options);
  if (job.status === 'completed' && result && Array.isArray(result.images)) return imageThumbs(result.images, label);
  return h('div', { class: `preview-placeholder status-${job.status}` }, PLACEHOLDER[job.status] || 'No result');
}

/** An editor asset in the library: its media, playable or visible. */
export function assetMedia(asset, label) {
  if (asset.kind === 'image') return h('img', { src: asset.url, alt: label, loading: 'lazy' });
  if (asset.kind === 'video' || asset.kind === 'export') return videoPlayer(asset.url, label);
  if (asset.kind === 'audio') return audioPlayer(asset.url, label);
  return h('a', { href: asset.url }, 'Open the file');
}
