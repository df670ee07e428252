import type { Asset, DashboardProject } from '../contracts.js';

export type Clip = DashboardProject['clips'][number];
export type Track = Clip['track'];

export const TRACKS: readonly Track[] = ['video', 'voice', 'sfx', 'music'];
export const TRACK_LABELS: Record<Track, string> = {
  video: 'Video',
  voice: 'Voice',
  sfx: 'Sound effects',
  music: 'Music',
};
export const STILL_SECONDS = 3; // a still without its own duration plays 3 s (docs/editor-api.md)

/** A short human name for an asset: its prompt or text, else its file name, else its kind and source. */
export function assetName(asset: Asset | undefined): string {
  const m = asset?.metadata ?? {};
  if (typeof m.prompt === 'string' && m.prompt.trim()) return m.prompt.trim();
  if (typeof m.text === 'string' && m.text.trim()) return m.text.trim();
  if (!asset) return 'missing asset';
  if (typeof m.filename === 'string' && m.filename.trim()) return m.filename.trim();
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

/** How long a clip plays: its own cut, else its asset's length, else a still's 3 s; null when unknown. */
export function clipSeconds(clip: Clip, asset: Asset | undefined): number | null {
  if (typeof clip.duration_sec === 'number') return clip.duration_sec;
  const m = asset?.metadata ?? {};
  if (typeof m.duration_sec === 'number') return m.duration_sec;
  return asset && asset.kind === 'image' ? STILL_SECONDS : null;
}
