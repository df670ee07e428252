import { createHash } from 'node:crypto';
import type { RenderRequest } from '@mf/contracts';
import { SAMPLE_RATE, type TimelinePlan, type VideoSegment } from '../domain/timeline';
import type { OutputSpec } from './ffmpeg-args';

/**
 * Content addresses of everything an export makes. Each key is the sha256 of exactly what decides
 * the bytes it names: sources by their storage ETag (their content, not their key, so the same media
 * under another key or in another project hits), clips by their timing, volume and the output spec.
 * Bump a version when the ffmpeg arguments that make its piece change: older entries then stop
 * matching and age out of the cache.
 */
const VIDEO_FORMAT = 2;
const SOUND_FORMAT = 1;
const MIX_FORMAT = 1;
const BUS_FORMAT = 1;
const RENDER_FORMAT = 1;

const sha256 = (parts: unknown[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/** A clip's picture in the output spec: its source, how long it plays (frames, still or not), size, fit and rate. */
export function videoKey(segment: VideoSegment, spec: OutputSpec): string {
  return sha256([
    'video',
    VIDEO_FORMAT,
    segment.source.etag,
    segment.still,
    segment.frames,
    spec.width,
    spec.height,
    spec.fit,
    spec.fps,
  ]);
}

/** A video clip's own sound, cut or padded to its length in samples (volume is applied in the mix). */
export function soundKey(segment: VideoSegment, fps: number): string {
  return sha256(['sound', SOUND_FORMAT, segment.source.etag, (segment.frames * SAMPLE_RATE) / fps]);
}

/**
 * The overlay bus: every voice, sfx and music clip with where and how long it plays, its volume
 * and looping, and the total length. Video clips are not in it: a clip replaced by another of the
 * same length keeps the bus.
 */
export function overlayBusKey(plan: TimelinePlan): string {
  return sha256([
    'overlays',
    BUS_FORMAT,
    plan.totalSamples,
    plan.overlays.map((o) => [o.source.etag, o.track, o.startSample, o.maxSamples, o.clip.volume, o.loop]),
  ]);
}

/**
 * The soundtrack: every clip's sound (or silence) with its volume, and the overlay bus. Pictures
 * are not in it: a clip replaced by another of the same length and sound keeps it.
 */
export function mixKey(plan: TimelinePlan): string {
  return sha256([
    'mix',
    MIX_FORMAT,
    plan.totalSamples,
    plan.segments.map((s) => (s.hasAudio ? [soundKey(s, plan.fps), s.clip.volume] : [null, s.frames])),
    plan.overlays.length > 0 ? overlayBusKey(plan) : null,
  ]);
}

/**
 * The whole export, from the request and the sources' ETags alone (no download, no probe): every
 * clip in request order with its track, position, kind, cut, start and volume, and the output
 * size, fit and rate. Equal keys make byte-for-byte the same mp4, so a finished export can answer
 * a later request with the same key.
 */
export function renderKey(
  req: Pick<RenderRequest, 'clips' | 'width' | 'height' | 'fit'>,
  etagOf: (storageKey: string) => string,
  fps: number,
): string {
  return sha256([
    'render',
    RENDER_FORMAT,
    VIDEO_FORMAT,
    SOUND_FORMAT,
    MIX_FORMAT,
    BUS_FORMAT,
    req.width,
    req.height,
    req.fit,
    fps,
    req.clips.map((c) => [c.track, c.idx, c.kind, etagOf(c.storage_key), c.duration_sec, c.start_sec, c.volume]),
  ]);
}
