import { h } from './dom.js';
import type { Asset, Job } from './contracts.js';

// Result media is served by the gateway at /media/... (same origin, so CSP media-src/img-src 'self').

export interface PlayerOptions {
  large?: boolean;
}

export function videoPlayer(url: string, label: string, { large = false }: PlayerOptions = {}): HTMLVideoElement {
  return h('video', {
    class: large ? 'player player-large' : 'player',
    controls: true,
    preload: 'metadata',
    playsinline: true,
    src: url,
    'aria-label': label,
  });
}

export function audioPlayer(url: string, label: string): HTMLAudioElement {
  return h('audio', { class: 'audio-player', controls: true, preload: 'metadata', src: url, 'aria-label': label });
}

/** Thumbnails that open the full image. */
export function imageThumbs(urls: readonly string[], labelPrefix: string): HTMLElement {
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

const PLACEHOLDER: Partial<Record<Job['status'], string>> = {
  processing: 'Rendering…',
  failed: 'Failed: no result',
  cancelled: 'Cancelled: no result',
};

/** A job's result: a <video> for videos, thumbnails for images, a note otherwise. */
export function jobPreview(job: Pick<Job, 'job_id' | 'status' | 'result'>, options: PlayerOptions = {}): HTMLElement {
  const result = job.result;
  const label = `Result of job ${job.job_id}`;
  if (job.status === 'completed' && result && 'video' in result) return videoPlayer(result.video, label, options);
  if (job.status === 'completed' && result && 'images' in result) return imageThumbs(result.images, label);
  return h('div', { class: `preview-placeholder status-${job.status}` }, PLACEHOLDER[job.status] ?? 'No result');
}

/** An editor asset in the library: its media, playable or visible. */
export function assetMedia(asset: Pick<Asset, 'kind' | 'url'>, label: string): HTMLElement {
  if (asset.kind === 'image') return h('img', { src: asset.url, alt: label, loading: 'lazy' });
  if (asset.kind === 'video' || asset.kind === 'export') return videoPlayer(asset.url, label);
  if (asset.kind === 'audio') return audioPlayer(asset.url, label);
  return h('a', { href: asset.url }, 'Open the file');
}
