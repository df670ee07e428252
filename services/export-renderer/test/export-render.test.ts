import { readdir } from 'node:fs/promises';
import { renderExport } from '../src/usecases/render-export.usecase';
import { clip, createHarness, renderRequest, type Harness } from './support/export-harness';
import { meanLevel, pixels, streamsOf } from './support/media-checks';
import { WIDE_COLOUR } from './support/sources';

// Real ffmpeg renders on a loaded two-core machine.
jest.setTimeout(180_000);

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.putSources('wide', 'tall', 'square', 'still', 'voiceA', 'voiceB', 'music');
});
afterAll(async () => {
  await h?.teardown();
});
afterEach(async () => {
  expect(await readdir(h.workRoot).catch(() => [])).toEqual([]);
});

const fetchOutput = (key: string) => h.fetchOutput(key);

const FRAME = 1 / 30;

describe('renderExport', () => {
  it('renders 16:9, 9:16 and 1:1 videos, a still, two voice lines and music into one 720x1280 mp4 of the summed length', async () => {
    const ctx = h.context();
    const req = renderRequest(
      [
        clip('video', 0, 'assets/wide.mp4'),
        clip('video', 1, 'assets/tall.mp4'),
        clip('video', 2, 'assets/square.mp4'),
        clip('video', 3, 'assets/still.png', { kind: 'image', duration_sec: 1 }),
        clip('voice', 0, 'assets/voice-a.m4a'),
        clip('voice', 1, 'assets/voice-b.wav', { start_sec: 4.2 }),
        clip('music', 0, 'assets/music.m4a', { volume: 0.5 }),
      ],
      { width: 720, height: 1280 },
    );

    const reply = await renderExport(ctx, req);

    // 2 s + 2 s + 1.5 s + the still's 1 s.
    const expectedSec = 6.5;
    expect(reply).toMatchObject({
      output_key: req.output_key,
      video_clip_count: 4,
      audio_overlay_count: 3,
      width: 720,
      height: 1280,
    });
    expect(Math.abs(reply.duration_sec - expectedSec)).toBeLessThanOrEqual(FRAME);
    const file = await fetchOutput(req.output_key);
    const { streams, durationSec } = await streamsOf(file);
    expect(reply.bytes).toBe((await h.storage.stat(req.output_key))!.size);
    expect(Math.abs(durationSec - expectedSec)).toBeLessThanOrEqual(FRAME);
    const video = streams.filter((s) => s.codec_type === 'video');
    const audio = streams.filter((s) => s.codec_type === 'audio');
    expect(video).toHaveLength(1);
    expect(audio).toHaveLength(1);
    expect(video[0]).toMatchObject({
      codec_name: 'h264',
      width: 720,
      height: 1280,
      pix_fmt: 'yuv420p',
      avg_frame_rate: '30/1',
      nb_read_packets: String(expectedSec * 30),
    });
    expect(audio[0]).toMatchObject({ codec_name: 'aac', sample_rate: '48000', channels: 2 });
    const run = await h.db('export_runs').where({ video_id: req.video_id }).first();
    expect(run).toMatchObject({ status: 'done', error_code: null, cache_hits: 0, cache_misses: 4 });
    expect(Math.abs(run.duration_sec - expectedSec)).toBeLessThanOrEqual(FRAME);
  });

  it('letterboxes a 16:9 clip in a 9:16 frame with black bars under fit, and fills the frame with it under fill', async () => {
    const ctx = h.context();
    const fitReq = renderRequest([clip('video', 0, 'assets/wide.mp4')], { fit: 'fit' });
    const fillReq = renderRequest([clip('video', 0, 'assets/wide.mp4')], { fit: 'fill' });
    await renderExport(ctx, fitReq);
    await renderExport(ctx, fillReq);

    const top = { x: 0, y: 0, w: 180, h: 16 };
    const middle = { x: 0, y: 152, w: 180, h: 16 };
    const fit = await fetchOutput(fitReq.output_key);
    const fill = await fetchOutput(fillReq.output_key);
    const fitTop = await pixels(fit, 1, top);
    expect(Math.max(...fitTop)).toBeLessThan(24);
    // The picture itself sits in the middle under fit, and covers the top rows under fill.
    expectColour(await pixels(fit, 1, middle), WIDE_COLOUR.rgb);
    expectColour(await pixels(fill, 1, top), WIDE_COLOUR.rgb);
  });

  it('places a voice line at its start_sec, loops the music to the end, ducks it under the voice and never lengthens the video', async () => {
    const ctx = h.context();
    const req = renderRequest([
      // 2 s without sound, then a 1 s still: 3 s of video.
      clip('video', 0, 'assets/tall.mp4'),
      clip('video', 1, 'assets/still.png', { kind: 'image', duration_sec: 1 }),
      clip('voice', 0, 'assets/voice-a.m4a', { start_sec: 1 }),
      // An effect that would run 0.5 s past the end.
      clip('sfx', 0, 'assets/voice-b.wav', { start_sec: 2.5 }),
      // 1 s of music under 3 s of video.
      clip('music', 0, 'assets/music.m4a'),
    ]);

    const reply = await renderExport(ctx, req);

    expect(Math.abs(reply.duration_sec - 3)).toBeLessThanOrEqual(FRAME);
    const file = await fetchOutput(req.output_key);
    const { durationSec } = await streamsOf(file);
    expect(Math.abs(durationSec - 3)).toBeLessThanOrEqual(FRAME);
    // Three 2-pole low-passes keep the 200 Hz music; three high-passes keep the 1 kHz voice.
    const musicBand = 'lowpass=f=300,lowpass=f=300,lowpass=f=300';
    const voiceBand = 'highpass=f=700,highpass=f=700,highpass=f=700';
    const musicAlone = await meanLevel(file, 0.2, 0.8, musicBand);
    const musicUnderVoice = await meanLevel(file, 1.3, 1.7, musicBand);
    const musicLooped = await meanLevel(file, 2.1, 2.4, musicBand);
    expect(musicAlone).toBeGreaterThan(-40);
    expect(musicLooped).toBeGreaterThan(musicAlone - 3);
    expect(musicUnderVoice).toBeLessThan(musicAlone - 6);
    expect(await meanLevel(file, 0.2, 0.8, voiceBand)).toBeLessThan(-60);
    expect(await meanLevel(file, 1.2, 1.7, voiceBand)).toBeGreaterThan(-35);
  });

  it("keeps each video clip's own sound at its place and volume, with silence under a clip without sound", async () => {
    const ctx = h.context();
    const req = renderRequest([
      // 2 s without sound, 2 s of a 440 Hz tone at half volume, 1.5 s of a 660 Hz tone muted.
      clip('video', 0, 'assets/tall.mp4'),
      clip('video', 1, 'assets/wide.mp4', { volume: 0.5 }),
      clip('video', 2, 'assets/square.mp4', { volume: 0 }),
    ]);
    const loud = renderRequest(req.clips.map((c) => (c.idx === 1 ? { ...c, volume: 1 } : c)));

    await renderExport(ctx, req);
    await renderExport(ctx, loud);

    const file = await fetchOutput(req.output_key);
    expect((await streamsOf(file)).durationSec).toBeCloseTo(5.5, 1);
    const tone = 'bandpass=f=440:width_type=h:w=100,bandpass=f=440:width_type=h:w=100';
    const toneOf660 = 'bandpass=f=660:width_type=h:w=100,bandpass=f=660:width_type=h:w=100';
    expect(await meanLevel(file, 0.2, 1.8, tone)).toBeLessThan(-60);
    const half = await meanLevel(file, 2.2, 3.8, tone);
    expect(half).toBeGreaterThan(-40);
    expect(await meanLevel(file, 4.2, 5.3, toneOf660)).toBeLessThan(-60);
    // Volume 0.5 is 6 dB below volume 1.
    const full = await meanLevel(await fetchOutput(loud.output_key), 2.2, 3.8, tone);
    expect(full - half).toBeGreaterThan(5);
    expect(full - half).toBeLessThan(7);
  });
});

/** Every pixel within a small distance of the colour (encoding shifts it a little). */
function expectColour(rgb: Buffer, colour: readonly [number, number, number]): void {
  let worst = 0;
  for (let i = 0; i < rgb.length; i++) worst = Math.max(worst, Math.abs(rgb[i] - colour[i % 3]));
  expect(worst).toBeLessThanOrEqual(12);
}
