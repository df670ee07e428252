import type { TimelineClip } from '@mf/contracts';
import type { ProbeResult } from '@mf/media';
import { clipLabel, exportError } from './export-errors';

/** Every export's audio rate. */
export const SAMPLE_RATE = 48_000;
/** How long a still plays without `duration_sec`. */
export const DEFAULT_STILL_SEC = 3;

/** A source object as the export sees it: where it is stored, its content's ETag and what ffprobe found. */
export interface Source {
  /** Storage key (the local copy is fetched only when a step needs the file). */
  key: string;
  /** Storage ETag: identifies the content, so every cache key uses it. */
  etag: string;
  probe: ProbeResult;
}

export interface VideoSegment {
  clip: TimelineClip;
  source: Source;
  /** A picture held for `frames` frames (kind image, or a source without duration). */
  still: boolean;
  /** Frames it plays at the output rate. */
  frames: number;
  /** Its first frame on the timeline. */
  startFrame: number;
  /** Whether it brings its own sound (else silence fills its time). */
  hasAudio: boolean;
}

export type OverlayTrack = 'voice' | 'sfx' | 'music';

export interface AudioOverlay {
  clip: TimelineClip;
  track: OverlayTrack;
  source: Source;
  /** Where it starts on the timeline, in samples. */
  startSample: number;
  /** Most samples it may play: its cut (`duration_sec`) and never past the video's end. */
  maxSamples: number;
  /** Music repeats until maxSamples; voice and sfx play once. */
  loop: boolean;
}

export interface TimelinePlan {
  fps: number;
  segments: VideoSegment[];
  /** Overlays that are heard: one starting at or after the video's end is left out. */
  overlays: AudioOverlay[];
  totalFrames: number;
  totalSamples: number;
  /** Every voice, sfx and music clip of the request, heard or not. */
  audioClipCount: number;
}

/** The video-track clips in play order (idx; ties keep the request's order). */
export function videoClipsOf(clips: TimelineClip[]): TimelineClip[] {
  return clips.filter((c) => c.track === 'video').sort((a, b) => a.idx - b.idx);
}

/**
 * Lays the clips out on one timeline (semantics in docs/export.md):
 * - video-track clips play one after another in idx order: a video for its own length, or its
 *   first `duration_sec` (a cut of its start, never longer than the source); a still for
 *   `duration_sec` or 3 s;
 * - voice and sfx start with the video clip of the same idx (the nearest one before it when there
 *   is none) unless they carry `start_sec`; music starts at `start_sec` or 0 and loops;
 * - audio is cut at the video's end and at its own `duration_sec`.
 * Throws 400 no_video_clips, or 422 corrupt_source for a source without the stream its track needs.
 */
export function planTimeline(
  clips: TimelineClip[],
  sourceOf: (clip: TimelineClip) => Source,
  fps: number,
): TimelinePlan {
  if (!Number.isInteger(SAMPLE_RATE / fps)) throw new RangeError(`fps ${fps} does not divide ${SAMPLE_RATE}`);
  const samplesPerFrame = SAMPLE_RATE / fps;
  const segments = planVideoSegments(clips, sourceOf, fps);
  const last = segments[segments.length - 1];
  const totalFrames = last.startFrame + last.frames;
  const totalSamples = totalFrames * samplesPerFrame;

  const audioClips = clips.filter((c): c is TimelineClip & { track: OverlayTrack } => c.track !== 'video');
  const overlays: AudioOverlay[] = [];
  for (const clip of audioClips) {
    const source = sourceOf(clip);
    if (!source.probe.audio)
      throw exportError('corrupt_source', `${clipLabel(clip)} has no sound. Replace or remove it and export again.`);
    const startSec = clip.start_sec ?? (clip.track === 'music' ? 0 : startOfVideoClip(segments, clip.idx) / fps);
    const startSample = Math.round(startSec * SAMPLE_RATE);
    if (startSample >= totalSamples) continue;
    const cut = clip.duration_sec === null ? Infinity : Math.round(clip.duration_sec * SAMPLE_RATE);
    overlays.push({
      clip,
      track: clip.track,
      source,
      startSample,
      maxSamples: Math.min(totalSamples - startSample, cut),
      loop: clip.track === 'music',
    });
  }
  return { fps, segments, overlays, totalFrames, totalSamples, audioClipCount: audioClips.length };
}

/**
 * The video track alone, as `planTimeline` lays it out: it needs the video clips' sources only,
 * so their pictures can be made while the sound-only sources are still being probed.
 */
export function planVideoSegments(
  clips: TimelineClip[],
  sourceOf: (clip: TimelineClip) => Source,
  fps: number,
): VideoSegment[] {
  const videoClips = videoClipsOf(clips);
  if (videoClips.length === 0) throw exportError('no_video_clips');
  const segments: VideoSegment[] = [];
  let startFrame = 0;
  for (const clip of videoClips) {
    const source = sourceOf(clip);
    if (!source.probe.video)
      throw exportError('corrupt_source', `${clipLabel(clip)} has no picture. Replace or remove it and export again.`);
    const still = clip.kind === 'image' || !(source.probe.durationSec > 0);
    const seconds = still
      ? (clip.duration_sec ?? DEFAULT_STILL_SEC)
      : Math.min(clip.duration_sec ?? source.probe.durationSec, source.probe.durationSec);
    const frames = Math.max(1, Math.round(seconds * fps));
    segments.push({ clip, source, still, frames, startFrame, hasAudio: !still && source.probe.audio !== undefined });
    startFrame += frames;
  }
  return segments;
}

/** First frame of the video clip with this idx, else of the nearest one before it, else 0. */
function startOfVideoClip(segments: VideoSegment[], idx: number): number {
  let start = 0;
  for (const s of segments) {
    if (s.clip.idx > idx) break;
    start = s.startFrame;
  }
  return start;
}
