import type { TimelineClip } from '@mf/contracts';
import type { AppError } from '@mf/errors';
import type { ProbeResult } from '@mf/media';
import { planTimeline, planVideoSegments, SAMPLE_RATE, type Source } from './timeline';

const FPS = 30;
const video = (durationSec: number, audio = true): ProbeResult => ({
  durationSec,
  formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
  video: { codec: 'h264', width: 640, height: 360, fps: 25 },
  ...(audio ? { audio: { codec: 'aac', sampleRate: 44_100, channels: 1 } } : {}),
});
const image: ProbeResult = {
  durationSec: 0,
  formatName: 'png_pipe',
  video: { codec: 'png', width: 320, height: 200, fps: 25 },
};
const sound = (durationSec: number): ProbeResult => ({
  durationSec,
  formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
  audio: { codec: 'aac', sampleRate: 48_000, channels: 2 },
});

function clip(
  track: TimelineClip['track'],
  idx: number,
  key: string,
  fields: Partial<TimelineClip> = {},
): TimelineClip {
  return {
    track,
    idx,
    storage_key: key,
    kind: track === 'video' ? 'video' : 'audio',
    duration_sec: null,
    start_sec: null,
    volume: 1,
    ...fields,
  };
}

function plan(clips: TimelineClip[], probes: Record<string, ProbeResult>) {
  return planTimeline(clips, (c): Source => ({ key: c.storage_key, etag: '"e"', probe: probes[c.storage_key] }), FPS);
}

function failure(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('no failure');
}

describe('planTimeline', () => {
  const probes = { a: video(2), b: video(1.5, false), png: image, v1: sound(1), v2: sound(0.5), m: sound(4) };

  it('plays video clips in idx order, each for its own length, a still for 3 s by default', () => {
    const p = plan([clip('video', 2, 'png', { kind: 'image' }), clip('video', 0, 'a'), clip('video', 1, 'b')], probes);
    expect(p.segments.map((s) => [s.clip.storage_key, s.startFrame, s.frames, s.still, s.hasAudio])).toEqual([
      ['a', 0, 60, false, true],
      ['b', 60, 45, false, false],
      ['png', 105, 90, true, false],
    ]);
    expect(p.totalFrames).toBe(195);
    expect(p.totalSamples).toBe((195 / FPS) * SAMPLE_RATE);
  });

  it('cuts a video to its duration_sec, never past its own length, and holds a still for its duration_sec', () => {
    const p = plan(
      [
        clip('video', 0, 'a', { duration_sec: 0.5 }),
        clip('video', 1, 'a', { duration_sec: 9 }),
        clip('video', 2, 'png', { kind: 'image', duration_sec: 1.25 }),
      ],
      probes,
    );
    expect(p.segments.map((s) => s.frames)).toEqual([15, 60, 38]);
  });

  it('starts voice and sfx with the video clip of the same idx unless they carry start_sec', () => {
    const p = plan(
      [clip('video', 0, 'a'), clip('video', 1, 'b'), clip('voice', 1, 'v1'), clip('sfx', 0, 'v2', { start_sec: 0.25 })],
      probes,
    );
    expect(p.overlays.map((o) => [o.track, o.startSample])).toEqual([
      ['voice', 2 * SAMPLE_RATE],
      ['sfx', 0.25 * SAMPLE_RATE],
    ]);
  });

  it('starts a voice line without a video clip of its idx with the nearest video clip before it', () => {
    const p = plan([clip('video', 0, 'a'), clip('video', 1, 'b'), clip('voice', 5, 'v1')], probes);
    expect(p.overlays[0].startSample).toBe(2 * SAMPLE_RATE);
  });

  it('loops music from 0 to the end of the video and cuts every overlay at the end', () => {
    const p = plan([clip('video', 0, 'a'), clip('music', 0, 'm'), clip('voice', 0, 'v1', { start_sec: 1.5 })], probes);
    expect(p.overlays.map((o) => [o.track, o.startSample, o.maxSamples, o.loop])).toEqual([
      ['music', 0, 2 * SAMPLE_RATE, true],
      ['voice', 1.5 * SAMPLE_RATE, 0.5 * SAMPLE_RATE, false],
    ]);
  });

  it('cuts an overlay to its duration_sec', () => {
    const p = plan([clip('video', 0, 'a'), clip('music', 0, 'm', { duration_sec: 0.5, start_sec: 1 })], probes);
    expect(p.overlays[0]).toMatchObject({ startSample: SAMPLE_RATE, maxSamples: 0.5 * SAMPLE_RATE });
  });

  it('leaves out an overlay that starts after the video ends, but still counts it', () => {
    const p = plan([clip('video', 0, 'a'), clip('sfx', 0, 'v2', { start_sec: 30 }), clip('voice', 0, 'v1')], probes);
    expect(p.overlays.map((o) => o.track)).toEqual(['voice']);
    expect(p.audioClipCount).toBe(2);
  });

  it('refuses a timeline without video-track clips with 400 no_video_clips', () => {
    expect(failure(() => plan([clip('voice', 0, 'v1')], probes))).toMatchObject({
      kind: 'invalid',
      body: { error: 'no_video_clips' },
    });
  });

  it('refuses a video clip without a picture and a voice clip without sound with 422 corrupt_source', () => {
    expect(failure(() => plan([clip('video', 0, 'v1')], probes)).body).toMatchObject({
      error: 'corrupt_source',
      message: expect.stringContaining('video clip at position 0'),
    });
    expect(failure(() => plan([clip('video', 0, 'a'), clip('voice', 3, 'png')], probes)).body).toMatchObject({
      error: 'corrupt_source',
      message: expect.stringContaining('voice clip at position 3'),
    });
  });
});

describe('planVideoSegments', () => {
  it("lays out the video track as planTimeline does from the video clips' sources alone", () => {
    const probes: Record<string, ProbeResult> = { a: video(2), b: video(1.5, false), v1: sound(1), m: sound(4) };
    const clips = [clip('video', 1, 'b'), clip('voice', 0, 'v1'), clip('video', 0, 'a'), clip('music', 0, 'm')];
    const sourceOf = (c: TimelineClip): Source => {
      if (c.track !== 'video') throw new Error(`${c.storage_key} is not a video source`);
      return { key: c.storage_key, etag: '"e"', probe: probes[c.storage_key] };
    };
    expect(planVideoSegments(clips, sourceOf, FPS)).toEqual(plan(clips, probes).segments);
  });
});
