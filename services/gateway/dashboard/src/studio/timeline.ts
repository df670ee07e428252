import { append, h, uid } from '../dom.js';
import { seconds } from '../format.js';
import type { Asset, Video } from '../contracts.js';
import { assetName, clipSeconds, STILL_SECONDS, TRACK_LABELS, TRACKS, type Clip, type Track } from './names.js';
import { dragToReorder } from './timeline-drag.js';
import { waveform } from './waveform.js';

/** What the timeline's buttons and drops do (the direct-edit routes); the page redraws with the new state. */
export interface TimelineActions {
  move(clip: Clip, idx: number): void;
  remove(clip: Clip): void;
}

/** A clip's picture: a still, a video's first frame, or an audio clip's waveform. */
function clipPicture(asset: Asset | undefined): Element | null {
  if (!asset) return null;
  if (asset.kind === 'image') return h('img', { class: 'clip-thumb', src: asset.url, alt: '' });
  if (asset.kind === 'video')
    return h('video', {
      class: 'clip-thumb',
      src: asset.url,
      preload: 'metadata',
      muted: true,
      playsinline: true,
      'aria-hidden': 'true',
    });
  if (asset.kind === 'audio') return waveform(asset.url);
  return null;
}

function clipItem(clip: Clip, asset: Asset | undefined, count: number, actions: TimelineActions): HTMLLIElement {
  const secs = clipSeconds(clip, asset);
  const name = assetName(asset);
  const label = `${TRACK_LABELS[clip.track]} clip ${clip.idx + 1}`;
  const button = (text: string, aria: string, onclick: () => void, disabled = false) =>
    h('button', { type: 'button', class: 'clip-button', 'aria-label': aria, title: aria, disabled, onclick }, text);
  const li = h(
    'li',
    {
      class: `clip clip-${clip.track}`,
      title: name,
      dataset: { clipId: clip.id, assetKind: asset?.kind ?? 'missing' },
    },
    clipPicture(asset),
    h('span', { class: 'clip-idx' }, `${clip.idx + 1}.`),
    ' ',
    h('span', { class: 'clip-name' }, name),
    h('span', { class: 'clip-meta' }, [
      secs !== null ? h('span', { class: 'clip-duration' }, seconds(secs)) : null,
      clip.start_sec !== null && clip.start_sec !== undefined ? ` · starts at ${seconds(clip.start_sec)}` : null,
      clip.volume !== undefined && clip.volume !== 1 ? ` · volume ${clip.volume}` : null,
    ]),
    h(
      'span',
      { class: 'clip-actions' },
      button('←', `Move ${label} earlier`, () => actions.move(clip, clip.idx - 1), clip.idx === 0),
      button('→', `Move ${label} later`, () => actions.move(clip, clip.idx + 1), clip.idx >= count - 1),
      button('✕', `Remove ${label}`, () => actions.remove(clip)),
    ),
  );
  // Width follows duration (CSSOM styles are allowed by the CSP; style attributes are not).
  li.style.flexGrow = String(secs ?? STILL_SECONDS);
  return li;
}

/**
 * A video's timeline as a region named "Timeline": one list per track (video, voice, sound
 * effects, music), each clip a list item as wide as it plays long on a scale shared by the tracks,
 * with buttons to move it within its track or remove it.
 */
export function timelineRegion(
  video: Video,
  clips: readonly Clip[],
  assetsById: Map<string, Asset>,
  actions: TimelineActions,
): HTMLElement {
  const headingId = uid('timeline');
  const byTrack = new Map<Track, Clip[]>(
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
    const items = onTrack.map((clip) => clipItem(clip, assetsById.get(clip.asset_id), onTrack.length, actions));
    const list = h('ol', { class: 'clips', 'aria-labelledby': labelId });
    const rest = longest - trackLength(track);
    const spacer = items.length && rest > 0.05 ? h('li', { class: 'clip-spacer', 'aria-hidden': 'true' }) : null;
    if (spacer) spacer.style.flexGrow = String(rest);
    if (items.length > 1)
      dragToReorder(list, new Map(items.map((item, i) => [item, onTrack[i]])), (clip, idx) => actions.move(clip, idx));
    return h(
      'div',
      { class: `track track-${track}`, dataset: { track } },
      h('span', { class: 'track-name', id: labelId }, TRACK_LABELS[track]),
      append(list, [items.length ? [items, spacer] : h('li', { class: 'clip-empty' }, 'No clips')]),
    );
  });
  return h(
    'section',
    { class: 'timeline-region', 'aria-labelledby': headingId },
    h('h3', { id: headingId }, 'Timeline'),
    h(
      'p',
      { class: 'hint' },
      `${seconds(longest)} in all. Drag clips or use the arrows to reorder them; add them from the media library or ask the editor.`,
    ),
    h('div', { class: 'timeline', tabindex: '0', 'aria-label': `Tracks of ${video.name}` }, rows),
  );
}

/**
 * The clips once the server has moved one: the others of its track shift around it and every clip
 * of the track gets its position as index (what the server does; the next load confirms it).
 */
export function withMoved(clips: readonly Clip[], moved: Clip): Clip[] {
  const sameTrack = (c: Clip) => c.video_id === moved.video_id && c.track === moved.track;
  const track = clips.filter((c) => sameTrack(c) && c.id !== moved.id).sort((a, b) => a.idx - b.idx);
  track.splice(Math.min(moved.idx, track.length), 0, moved);
  return [...clips.filter((c) => !sameTrack(c)), ...track.map((c, idx) => ({ ...c, idx }))];
}
