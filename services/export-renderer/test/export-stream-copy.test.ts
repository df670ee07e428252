import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RenderRequest } from '@mf/contracts';
import { resolveFfmpeg } from '@mf/media';
import { renderExport } from '../src/usecases/render-export.usecase';
import { clip, createHarness, renderRequest, type Harness } from './support/export-harness';
import { pixels, streamsOf } from './support/media-checks';
import { WIDE_COLOUR } from './support/sources';

jest.setTimeout(180_000);

let h: Harness;
/** An earlier export, 180x320: 2 s of the 9:16 pattern then a 0.5 s still (75 frames). */
let earlier: RenderRequest;
beforeAll(async () => {
  h = await createHarness();
  await h.putSources('wide', 'tall', 'still');
  earlier = renderRequest([
    clip('video', 0, 'assets/tall.mp4'),
    clip('video', 1, 'assets/still.png', { kind: 'image', duration_sec: 0.5 }),
  ]);
  await renderExport(h.context(), earlier);
});
afterAll(async () => {
  await h?.teardown();
});
afterEach(async () => {
  expect(await readdir(h.workRoot).catch(() => [])).toEqual([]);
});

const fetchOutput = (key: string) => h.fetchOutput(key);

async function copiedCount(req: RenderRequest): Promise<number> {
  return (await h.db('export_runs').first('clips_copied').where({ video_id: req.video_id })).clips_copied;
}

/** ffmpeg's complaints while decoding every frame (empty for a clean stream). */
async function decodeErrors(file: string): Promise<string> {
  const { stderr } = await promisify(execFile)(resolveFfmpeg(), ['-v', 'error', '-i', file, '-f', 'null', '-']);
  return stderr;
}

describe('stream copy', () => {
  it('copies an earlier export placed in a timeline of the same size instead of encoding it, and joins it cleanly with encoded clips', async () => {
    const req = renderRequest([
      clip('video', 0, earlier.output_key, { kind: 'export' }),
      clip('video', 1, 'assets/wide.mp4'),
    ]);

    const reply = await renderExport(h.context(), req);

    expect(await copiedCount(req)).toBe(1);
    expect(reply.duration_sec).toBeCloseTo(4.5, 1);
    const file = await fetchOutput(req.output_key);
    const { streams } = await streamsOf(file);
    expect(streams.find((s) => s.codec_type === 'video')).toMatchObject({
      codec_name: 'h264',
      width: 180,
      height: 320,
      avg_frame_rate: '30/1',
      nb_read_packets: String(75 + 60),
    });
    expect(await decodeErrors(file)).toBe('');
    // The copied part is the earlier export's own pictures, bit for bit; the encoded part follows it.
    const rect = { x: 0, y: 0, w: 180, h: 320 };
    const source = await fetchOutput(earlier.output_key);
    expect((await pixels(file, 1, rect)).equals(await pixels(source, 1, rect))).toBe(true);
    const middle = await pixels(file, 3.5, { x: 0, y: 152, w: 180, h: 16 });
    expect(Math.max(...middle.map((v, i) => Math.abs(v - WIDE_COLOUR.rgb[i % 3])))).toBeLessThanOrEqual(12);
  });

  it.each<[string, Partial<RenderRequest>, { duration_sec?: number }, number]>([
    ['at another size', { width: 320, height: 180 }, {}, 4.5],
    ['with a cut', {}, { duration_sec: 1 }, 3],
  ])('encodes the earlier export %s', async (_what, size, cut, seconds) => {
    const req = renderRequest(
      [clip('video', 0, earlier.output_key, { kind: 'export', ...cut }), clip('video', 1, 'assets/wide.mp4')],
      size,
    );
    const reply = await renderExport(h.context(), req);
    expect(await copiedCount(req)).toBe(0);
    expect(reply.duration_sec).toBeCloseTo(seconds, 1);
    expect(await decodeErrors(await fetchOutput(req.output_key))).toBe('');
  });

  it('encodes an H.264 source of the right size and rate that another encoder made (its headers differ from ours)', async () => {
    const other = path.join(h.workRoot, '..', 'other-encoder.mp4');
    await promisify(execFile)(resolveFfmpeg(), [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=s=180x320:r=30:d=1',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      '-y',
      other,
    ]);
    await h.put('assets/other-encoder.mp4', other);
    const req = renderRequest([clip('video', 0, 'assets/other-encoder.mp4'), clip('video', 1, 'assets/tall.mp4')]);
    const reply = await renderExport(h.context(), req);
    expect(await copiedCount(req)).toBe(0);
    expect(reply.duration_sec).toBeCloseTo(3, 1);
    expect(await decodeErrors(await fetchOutput(req.output_key))).toBe('');
  });
});
