import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RenderRequest } from '@mf/contracts';
import { httpStatusOf, type AppError } from '@mf/errors';
import { resolveFfmpeg, runFfmpeg } from '@mf/media';
import type { Storage } from '@mf/storage';
import { renderExport } from '../src/usecases/render-export.usecase';
import type { ExportContext } from '../src/usecases/context';
import { clip, createHarness, renderRequest, type Harness } from './support/export-harness';
import { childMediaProcesses, watchMediaProcesses } from './support/media-checks';

jest.setTimeout(180_000);

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.putSources('wide', 'tall', 'square', 'still', 'voiceA', 'truncatedMoovAtEnd', 'truncatedFaststart');
});
afterAll(async () => {
  await h?.teardown();
});
afterEach(async () => {
  // Whatever happened, the export's scratch dir is gone and no ffmpeg or ffprobe is left running.
  expect(await readdir(h.workRoot).catch(() => [])).toEqual([]);
  expect(await childMediaProcesses()).toEqual([]);
});

/** The AppError an export rejects with (fails the test if it resolves). */
async function failureOf(ctx: ExportContext, req: RenderRequest): Promise<AppError> {
  const outcome = await renderExport(ctx, req).then(
    () => null,
    (err: unknown) => err as AppError,
  );
  if (!outcome) throw new Error('the export succeeded');
  return outcome;
}

/** The contract's body, with a message fit for end users: no paths, keys or encoder output. */
function expectExportError(err: AppError, status: number, code: string): void {
  expect(err.name).toBe('AppError');
  expect({ status: httpStatusOf(err.kind), error: err.body.error }).toEqual({ status, error: code });
  expect(Object.keys(err.body).sort()).toEqual(['error', 'message']);
  expect(typeof err.body.message).toBe('string');
  expect(err.body.message).not.toMatch(/\/|ffmpeg|ffprobe|stderr|assets|\.mp4|exit/i);
}

async function runRow(req: RenderRequest): Promise<{ status: string; error_code: string | null } | undefined> {
  return h.db('export_runs').where({ video_id: req.video_id }).first();
}

/**
 * Fetched and probed in well under a second, then a normalisation of ten minutes of 1080x1920
 * frames: a timeout of a few seconds always lands while ffmpeg is encoding.
 */
const longRender = () =>
  renderRequest([clip('video', 0, 'assets/still.png', { kind: 'image', duration_sec: 600 })], {
    width: 1080,
    height: 1920,
  });

/** A storage like `base` with some methods replaced. */
function storageWith(base: Storage, overrides: Partial<Pick<Storage, 'check' | 'putFile'>>): Storage {
  return {
    driver: base.driver,
    put: (...a) => base.put(...a),
    putFile: (...a) => base.putFile(...a),
    stat: (...a) => base.stat(...a),
    get: (...a) => base.get(...a),
    delete: (...a) => base.delete(...a),
    deletePrefix: (...a) => base.deletePrefix(...a),
    check: () => base.check(),
    ...overrides,
  };
}

describe('export errors', () => {
  it('answers 400 no_video_clips for a timeline without video-track clips, and starts no run', async () => {
    const req = renderRequest([clip('voice', 0, 'assets/voice-a.m4a')]);
    expectExportError(await failureOf(h.context(), req), 400, 'no_video_clips');
    expect(await runRow(req)).toBeUndefined();
  });

  it.each([
    ['whose index is cut off (ffprobe cannot read it)', 'assets/truncated.mp4'],
    ['whose data is cut off (ffprobe reads it, decoding fails)', 'assets/truncated-faststart.mp4'],
  ])('answers 422 corrupt_source for a truncated mp4 %s', async (_what, key) => {
    const req = renderRequest([
      clip('video', 0, 'assets/still.png', { kind: 'image', duration_sec: 0.5 }),
      clip('video', 1, key),
    ]);
    const err = await failureOf(h.context(), req);
    expectExportError(err, 422, 'corrupt_source');
    expect(err.body.message).toContain('video clip at position 1');
    expect(await runRow(req)).toMatchObject({ status: 'failed', error_code: 'corrupt_source' });
  });

  it('answers 422 corrupt_source naming a voice clip whose file probes but fails to decode', async () => {
    const faststart = path.join(h.workRoot, '..', 'voice-faststart.m4a');
    const truncated = path.join(h.workRoot, '..', 'voice-truncated.m4a');
    await runFfmpeg(['-v', 'error', '-i', h.sources.voiceA, '-c', 'copy', '-movflags', '+faststart', '-y', faststart], {
      ffmpegPath: resolveFfmpeg(),
      timeoutMs: 30_000,
    });
    const bytes = await readFile(faststart);
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await h.put('assets/voice-truncated.m4a', truncated);
    const req = renderRequest([
      clip('video', 0, 'assets/still.png', { kind: 'image', duration_sec: 1 }),
      clip('voice', 0, 'assets/voice-truncated.m4a'),
    ]);
    const err = await failureOf(h.context(), req);
    expectExportError(err, 422, 'corrupt_source');
    expect(err.body.message).toContain('voice clip at position 0');
  });

  it('answers 502 source_fetch_failed when a source object is missing from storage', async () => {
    const req = renderRequest([clip('video', 0, 'assets/wide.mp4'), clip('voice', 0, 'assets/never-stored.m4a')]);
    const err = await failureOf(h.context(), req);
    expectExportError(err, 502, 'source_fetch_failed');
    expect(err.body.message).toContain('voice clip at position 0');
    expect(await runRow(req)).toMatchObject({ status: 'failed', error_code: 'source_fetch_failed' });
  });

  it('answers 503 storage_unconfigured when storage fails its check, before counting the export against the user', async () => {
    const down = storageWith(h.storage, {
      check: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:9000')),
    });
    const req = renderRequest([clip('video', 0, 'assets/wide.mp4')]);
    expectExportError(await failureOf(h.context({}, down), req), 503, 'storage_unconfigured');
    expect(await runRow(req)).toBeUndefined();
  });

  it('answers 503 storage_unconfigured when the upload fails because storage became unreachable', async () => {
    let checks = 0;
    const goesAway = storageWith(h.storage, {
      check: () => (++checks === 1 ? h.storage.check() : Promise.reject(new Error('connect ECONNREFUSED'))),
      putFile: () => Promise.reject(new Error('connect ECONNREFUSED')),
    });
    const req = renderRequest([clip('video', 0, 'assets/still.png', { kind: 'image', duration_sec: 0.5 })]);
    expectExportError(await failureOf(h.context({}, goesAway), req), 503, 'storage_unconfigured');
    expect(await runRow(req)).toMatchObject({ status: 'failed', error_code: 'storage_unconfigured' });
  });

  it('answers 504 export_timeout when the whole export passes EXPORT_TIMEOUT_MS, and kills its ffmpeg', async () => {
    const req = longRender();
    const watch = watchMediaProcesses();
    const err = await failureOf(h.context({ EXPORT_TIMEOUT_MS: '3000' }), req);
    const seen = await watch.stop();
    expectExportError(err, 504, 'export_timeout');
    // ffmpeg was running when time ran out, and none of those processes is left once the export answered.
    expect(seen.length).toBeGreaterThan(0);
    expect(await childMediaProcesses()).toEqual([]);
    expect(await runRow(req)).toMatchObject({ status: 'failed', error_code: 'export_timeout' });
  });

  it('answers 504 ffmpeg_timeout when one ffmpeg step passes FFMPEG_STEP_TIMEOUT_MS, and kills it', async () => {
    const req = longRender();
    const watch = watchMediaProcesses();
    const err = await failureOf(h.context({ FFMPEG_STEP_TIMEOUT_MS: '3000' }), req);
    const seen = await watch.stop();
    expectExportError(err, 504, 'ffmpeg_timeout');
    expect(seen.length).toBeGreaterThan(0);
    expect(await childMediaProcesses()).toEqual([]);
    expect(await runRow(req)).toMatchObject({ status: 'failed', error_code: 'ffmpeg_timeout' });
  });

  it('answers 429 rate_limited with Retry-After to the 6th export of a user within a minute (limit 5)', async () => {
    const ctx = h.context({ EXPORT_RATE_LIMIT: '5' });
    const cheap = () =>
      renderRequest([clip('video', 0, 'assets/still.png', { kind: 'image', duration_sec: 0.5 })], { user_id: 10_077 });
    for (let i = 0; i < 5; i++) await renderExport(ctx, cheap());

    const err = await failureOf(ctx, cheap());

    expectExportError(err, 429, 'rate_limited');
    expect(err.body.message).toBe('Too many exports in the last minute. Try again shortly.');
    const retryAfter = err.details.retryAfterSec ?? 0;
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(await h.db('export_runs').where({ user_id: 10_077 }).count<{ count: number }[]>({ count: '*' })).toEqual([
      { count: 5 },
    ]);
    // Other users are not affected.
    await expect(renderExport(ctx, { ...cheap(), user_id: 10_078 })).resolves.toMatchObject({ video_clip_count: 1 });
  });

  it('answers 500 ffmpeg_failed when an ffmpeg step fails for a reason other than its input', async () => {
    const failing = path.join(h.workRoot, '..', 'failing-ffmpeg.sh');
    await writeFile(failing, '#!/bin/sh\necho "Conversion failed! /secret/path" >&2\nexit 1\n', { mode: 0o755 });
    const req = renderRequest([clip('video', 0, 'assets/wide.mp4')]);
    expectExportError(await failureOf(h.context({ FFMPEG_PATH: failing }), req), 500, 'ffmpeg_failed');
    expect(await runRow(req)).toMatchObject({ status: 'failed', error_code: 'ffmpeg_failed' });
  });

  it('answers 500 export_failed for an unexpected failure (scratch root not creatable)', async () => {
    const notADir = path.join(h.workRoot, '..', 'plain-file');
    await writeFile(notADir, 'x');
    const req = renderRequest([clip('video', 0, 'assets/wide.mp4')]);
    expectExportError(
      await failureOf(h.context({ EXPORT_WORK_DIR: path.join(notADir, 'work') }), req),
      500,
      'export_failed',
    );
    expect(await runRow(req)).toMatchObject({ status: 'failed', error_code: 'export_failed' });
  });
});
