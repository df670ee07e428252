import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveFfmpeg } from '@mf/media';
import { renderExport } from '../src/usecases/render-export.usecase';
import { clip, createHarness, renderRequest, type Harness } from './support/export-harness';
import { streamsOf } from './support/media-checks';

jest.setTimeout(180_000);

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.putSources('wide', 'tall', 'square', 'still', 'voiceA', 'music');
});
afterAll(async () => {
  await h?.teardown();
});
afterEach(async () => {
  expect(await readdir(h.workRoot).catch(() => [])).toEqual([]);
});

const timeline = (cut: number | null = null) => [
  clip('video', 0, 'assets/wide.mp4', { duration_sec: cut }),
  clip('video', 1, 'assets/tall.mp4'),
  clip('video', 2, 'assets/square.mp4'),
  clip('video', 3, 'assets/still.png', { kind: 'image', duration_sec: 1 }),
];

async function cacheCounts(videoId: string): Promise<{ cache_hits: number; cache_misses: number }> {
  return h.db('export_runs').select('cache_hits', 'cache_misses').where({ video_id: videoId }).first();
}

describe('normalised-clip cache', () => {
  it('re-renders only the clip whose source object changed, then only the clip whose cut changed', async () => {
    const cacheDir = path.join(h.workRoot, '..', 'shared-cache');
    const ctx = h.context({ EXPORT_CACHE_DIR: cacheDir });

    const first = renderRequest(timeline());
    await renderExport(ctx, first);
    expect(await cacheCounts(first.video_id)).toEqual({ cache_hits: 0, cache_misses: 4 });

    // Same key, new content: a new ETag.
    await h.put('assets/square.mp4', h.sources.tallAlt);
    const second = renderRequest(timeline());
    const reply = await renderExport(ctx, second);
    expect(await cacheCounts(second.video_id)).toEqual({ cache_hits: 3, cache_misses: 1 });
    // The changed clip is 2 s where the old one was 1.5 s: the output follows the new source.
    expect(reply.duration_sec).toBeCloseTo(2 + 2 + 2 + 1, 1);

    const third = renderRequest(timeline(1));
    await renderExport(ctx, third);
    expect(await cacheCounts(third.video_id)).toEqual({ cache_hits: 3, cache_misses: 1 });

    // Every cached clip carries identical H.264 headers: the condition for joining them with -c copy.
    const cached = (await readdir(cacheDir)).filter((n) => n.endsWith('.mov'));
    expect(cached).toHaveLength(6);
    const headers = new Set<string | undefined>();
    for (const name of cached) {
      const { streams } = await streamsOf(path.join(cacheDir, name));
      headers.add(streams.find((s) => s.codec_type === 'video')?.extradata_hash);
    }
    expect(headers.size).toBe(1);
  });

  it('re-mixes only the soundtrack when a volume changes: every picture comes from the cache', async () => {
    const ctx = h.context();
    const first = renderRequest(timeline());
    await renderExport(ctx, first);
    const quieter = renderRequest(timeline().map((c) => (c.idx === 0 ? { ...c, volume: 0.3 } : c)));
    const reply = await renderExport(ctx, quieter);
    expect(await cacheCounts(quieter.video_id)).toEqual({ cache_hits: 4, cache_misses: 0 });
    expect(reply.output_key).toBe(quieter.output_key);
    expect((await readdir(ctx.cache.dir)).filter((n) => n.endsWith('.m4a'))).toHaveLength(2);
  });

  it('keeps the soundtrack and the overlay bus when a silent video clip changes to another of the same length', async () => {
    const ctx = h.context();
    await h.put('assets/silent.mp4', h.sources.tall);
    const clips = () => [
      clip('video', 0, 'assets/wide.mp4'),
      clip('video', 1, 'assets/silent.mp4'),
      clip('voice', 0, 'assets/voice-a.m4a'),
      clip('music', 0, 'assets/music.m4a'),
    ];
    await renderExport(ctx, renderRequest(clips()));
    await h.put('assets/silent.mp4', h.sources.tallAlt);
    const second = renderRequest(clips());
    await renderExport(ctx, second);
    expect(await cacheCounts(second.video_id)).toEqual({ cache_hits: 1, cache_misses: 1 });
    const names = await readdir(ctx.cache.dir);
    expect(names.filter((n) => n.endsWith('.m4a'))).toHaveLength(1);
    expect(names.filter((n) => n.endsWith('.f32.wav'))).toHaveLength(1);
  });

  it('renders a clip used twice in one export once', async () => {
    const ctx = h.context();
    const req = renderRequest([
      clip('video', 0, 'assets/tall.mp4'),
      clip('video', 1, 'assets/tall.mp4'),
      clip('video', 2, 'assets/wide.mp4'),
    ]);
    const reply = await renderExport(ctx, req);
    expect(await cacheCounts(req.video_id)).toEqual({ cache_hits: 1, cache_misses: 2 });
    expect(reply.duration_sec).toBeCloseTo(6, 1);
  });

  it('runs every picture on one thread but the last ones to start (as many as the slots), which get every core', async () => {
    // An ffmpeg that notes its arguments, one line per run, in start order.
    const dir = await mkdtemp(path.join(tmpdir(), 'mf-export-ffmpeg-'));
    const log = path.join(dir, 'runs.log');
    const wrapper = path.join(dir, 'ffmpeg');
    await writeFile(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${resolveFfmpeg()}' "$@"\n`);
    await chmod(wrapper, 0o755);
    const ctx = h.context({ FFMPEG_PATH: wrapper, EXPORT_CONCURRENCY: '2' });
    await renderExport(ctx, renderRequest(timeline()));

    const pictures = (await readFile(log, 'utf8')).split('\n').filter((line) => /picture-\d+\.mov/.test(line));
    expect(pictures).toHaveLength(4);
    expect(pictures.map((line) => line.includes('-threads 1'))).toEqual([true, true, false, false]);
    await rm(dir, { recursive: true, force: true });
  });

  it("joins cached clips from a cache dir whose path holds quotes and spaces (the concat list's quoting)", async () => {
    const ctx = h.context({ EXPORT_CACHE_DIR: path.join(h.workRoot, '..', "it's a cache") });
    const req = renderRequest([
      clip('video', 0, 'assets/still.png', { kind: 'image', duration_sec: 0.5 }),
      clip('video', 1, 'assets/tall.mp4'),
    ]);
    await expect(renderExport(ctx, req)).resolves.toMatchObject({ duration_sec: 2.5, video_clip_count: 2 });
  });

  it('keeps the cache under EXPORT_CACHE_MAX_BYTES by dropping clips once no export reads them', async () => {
    const cacheDir = path.join(h.workRoot, '..', 'tiny-cache');
    const ctx = h.context({ EXPORT_CACHE_DIR: cacheDir, EXPORT_CACHE_MAX_BYTES: '0' });
    const req = renderRequest(timeline());
    await expect(renderExport(ctx, req)).resolves.toMatchObject({ video_clip_count: 4 });
    expect((await readdir(cacheDir)).filter((n) => n.endsWith('.mov'))).toEqual([]);
  });
});
