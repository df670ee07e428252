import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RenderRequest, TimelineClip } from '@mf/contracts';
import { renderExport } from '../src/usecases/render-export.usecase';
import { clip, createHarness, renderRequest, type Harness } from './support/export-harness';

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

const timeline = (): TimelineClip[] => [
  clip('video', 0, 'assets/wide.mp4'),
  clip('video', 1, 'assets/still.png', { kind: 'image', duration_sec: 0.5 }),
  clip('voice', 0, 'assets/voice-a.m4a', { start_sec: 0.2 }),
  clip('music', 0, 'assets/music.m4a', { volume: 0.5 }),
];

async function runOf(
  req: RenderRequest,
): Promise<{ status: string; reused: boolean; cache_hits: number; cache_misses: number }> {
  return h.db('export_runs').first('status', 'reused', 'cache_hits', 'cache_misses').where({ video_id: req.video_id });
}

/** A second export of the same user, new video id and output key, with these changes. */
function again(first: RenderRequest, changes: Partial<RenderRequest> = {}): RenderRequest {
  return renderRequest(first.clips, {
    user_id: first.user_id,
    width: first.width,
    height: first.height,
    fit: first.fit,
    ...changes,
  });
}

describe('content-addressed export results', () => {
  it("answers an unchanged timeline with the first export's stored file, renders nothing and records the run as reused", async () => {
    const ctx = h.context();
    const first = renderRequest(timeline());
    const rendered = await renderExport(ctx, first);
    const cached = await readdir(ctx.cache.dir);

    const second = again(first);
    const reply = await renderExport(ctx, second);

    expect(reply).toEqual({ ...rendered, output_key: first.output_key });
    expect(await h.storage.stat(second.output_key)).toBeNull();
    expect(await runOf(second)).toEqual({ status: 'done', reused: true, cache_hits: 0, cache_misses: 0 });
    // Nothing new was made: the piece cache holds exactly what the first export left.
    expect((await readdir(ctx.cache.dir)).sort()).toEqual(cached.sort());
  });

  it.each<[string, (first: RenderRequest) => Promise<RenderRequest>]>([
    [
      'a source object gets new content',
      async (first) => {
        await h.put('assets/mutable.mp4', h.sources.tallAlt);
        return again(first);
      },
    ],
    ['the fit changes', async (first) => again(first, { fit: 'fill' })],
    ['the size changes', async (first) => again(first, { width: 320, height: 180 })],
    [
      'a clip volume changes',
      async (first) =>
        again(first, { clips: first.clips.map((c) => (c.track === 'music' ? { ...c, volume: 0.25 } : c)) }),
    ],
    [
      'a cut changes',
      async (first) =>
        again(first, {
          clips: first.clips.map((c) => (c.storage_key === 'assets/mutable.mp4' ? { ...c, duration_sec: 1 } : c)),
        }),
    ],
    [
      'a voice moves',
      async (first) =>
        again(first, { clips: first.clips.map((c) => (c.track === 'voice' ? { ...c, start_sec: 0.6 } : c)) }),
    ],
    [
      'clips swap places',
      async (first) =>
        again(first, {
          clips: first.clips.map((c) => (c.track === 'video' && c.idx < 2 ? { ...c, idx: 1 - c.idx } : c)),
        }),
    ],
  ])('renders anew when %s', async (_what, change) => {
    const ctx = h.context();
    await h.put('assets/mutable.mp4', h.sources.tall);
    const first = renderRequest(
      [clip('video', 0, 'assets/mutable.mp4'), ...timeline()].map((c, i) =>
        c.track === 'video' ? { ...c, idx: i } : c,
      ),
    );
    const rendered = await renderExport(ctx, first);

    const next = await change(first);
    const reply = await renderExport(ctx, next);

    expect(reply.output_key).toBe(next.output_key);
    expect((await h.storage.stat(next.output_key))?.size).toBe(reply.bytes);
    expect(await runOf(next)).toMatchObject({ status: 'done', reused: false });
    // The first file is still the first export's, untouched.
    expect((await h.storage.stat(first.output_key))?.size).toBe(rendered.bytes);
  });

  it('renders anew at the output fps: the same timeline at another EXPORT_FPS is another result', async () => {
    const first = renderRequest(timeline());
    await renderExport(h.context(), first);
    const next = again(first);
    const reply = await renderExport(h.context({ EXPORT_FPS: '25' }), next);
    expect(reply.output_key).toBe(next.output_key);
    expect(await runOf(next)).toMatchObject({ reused: false });
  });

  it('renders anew when the stored file was deleted or replaced, and reuses the new file afterwards', async () => {
    const ctx = h.context();
    const first = renderRequest(timeline());
    await renderExport(ctx, first);

    await h.storage.delete(first.output_key);
    const second = again(first);
    expect((await renderExport(ctx, second)).output_key).toBe(second.output_key);

    await h.put(second.output_key, h.sources.tall);
    const third = again(first);
    expect((await renderExport(ctx, third)).output_key).toBe(third.output_key);

    const fourth = again(first);
    expect((await renderExport(ctx, fourth)).output_key).toBe(third.output_key);
    expect(await runOf(fourth)).toMatchObject({ reused: true });
  });

  it("never answers one user with another user's file", async () => {
    const ctx = h.context();
    const first = renderRequest(timeline());
    await renderExport(ctx, first);
    const other = renderRequest(timeline());
    expect(other.user_id).not.toBe(first.user_id);
    expect((await renderExport(ctx, other)).output_key).toBe(other.output_key);
  });

  it('renders identical exports arriving together once: the others wait and get its file', async () => {
    const ctx = h.context();
    const first = renderRequest(timeline());
    const all = [first, again(first), again(first)];

    const replies = await Promise.all(all.map((req) => renderExport(ctx, req)));

    const keys = new Set(replies.map((r) => r.output_key));
    expect(keys.size).toBe(1);
    const [key] = keys;
    const renderer = all.find((req) => req.output_key === key)!;
    const runs = await Promise.all(all.map(runOf));
    expect(runs.filter((r) => !r.reused)).toHaveLength(1);
    expect(await runOf(renderer)).toMatchObject({ reused: false, cache_misses: 2 });
    for (const req of all.filter((r) => r !== renderer)) expect(await h.storage.stat(req.output_key)).toBeNull();
  });

  it('makes a picture two different exports need at the same time once', async () => {
    const ctx = h.context();
    const a = renderRequest([clip('video', 0, 'assets/tall.mp4'), clip('video', 1, 'assets/wide.mp4')]);
    const b = renderRequest([clip('video', 0, 'assets/tall.mp4'), clip('video', 1, 'assets/square.mp4')]);

    await Promise.all([renderExport(ctx, a), renderExport(ctx, b)]);

    const [ra, rb] = await Promise.all([runOf(a), runOf(b)]);
    expect(ra.cache_misses + rb.cache_misses).toBe(3);
    expect(ra.cache_hits + rb.cache_hits).toBe(1);
    expect((await readdir(ctx.cache.dir)).filter((n) => n.endsWith('.mov'))).toHaveLength(3);
  });

  it('keeps answering from the stored result when the piece cache was emptied', async () => {
    const cacheDir = path.join(h.workRoot, '..', 'emptied-cache');
    const first = renderRequest(timeline());
    await renderExport(h.context({ EXPORT_CACHE_DIR: cacheDir }), first);
    const second = again(first);
    // A new process with an empty cache: the result lives in the database and storage, not in the cache.
    expect((await renderExport(h.context({ EXPORT_CACHE_DIR: `${cacheDir}-new` }), second)).output_key).toBe(
      first.output_key,
    );
  });
});
