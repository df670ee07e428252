/**
 * Export benchmark: a 6-scene, 30 s, 1280x720 timeline (one voice line per scene, a music bed)
 * exported by our pipeline (cold cache), by ONE plain ffmpeg filter_complex command doing the same
 * work, and by our pipeline again after one clip changed (warm cache). Prints figures; no pass/fail.
 *
 *   node --import tsx bench/export/run.ts [--keep]
 *
 * Libraries are imported from source, as the services consume them.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { RenderRequest, TimelineClip } from '../../libs/contracts/src';
import { silentLogger } from '../../libs/testing/src/logger';
import { resolveFfmpeg, resolveFfprobe } from '../../libs/media/src';
import { createStorage } from '../../libs/storage/src';
import { ClipCache } from '../../services/export-renderer/src/render/clip-cache';
import { Semaphore } from '../../services/export-renderer/src/render/limiter';
import { runPipeline, type PipelineDeps, type PipelineResult } from '../../services/export-renderer/src/render/pipeline';
import { SCENES, SCENE_SEC, WIDTH, HEIGHT, FPS, makeBenchSources, type BenchSources } from './sources';
import { baselineArgs } from './baseline';

const run = promisify(execFile);
const ffmpegPath = resolveFfmpeg();
const ffprobePath = resolveFfprobe();
const TIMELINE_SEC = SCENES * SCENE_SEC;

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'mf-export-bench-'));
  const keep = process.argv.includes('--keep');
  try {
    const cores = os.cpus().length;
    console.log(`export bench: ${SCENES} scenes x ${SCENE_SEC} s = ${TIMELINE_SEC} s at ${WIDTH}x${HEIGHT} ${FPS} fps, ${cores} CPU cores, ${firstLine((await run(ffmpegPath, ['-version'])).stdout)}`);
    let t = Date.now();
    const sources = await makeBenchSources(path.join(root, 'sources'), ffmpegPath);
    console.log(`sources generated in ${seconds(Date.now() - t)} (not counted)`);

    const storage = createStorage({ driver: 'local', dir: path.join(root, 'media') });
    await uploadSources(storage, sources);
    const deps: PipelineDeps = {
      storage,
      cache: new ClipCache(path.join(root, 'cache'), 5 * 1024 ** 3, silentLogger()),
      slots: new Semaphore(cores),
      settings: {
        ffmpegPath,
        ffprobePath,
        exportTimeoutMs: 600_000,
        stepTimeoutMs: 300_000,
        rateLimit: 1000,
        workDir: path.join(root, 'work'),
        fps: FPS,
        fetchConcurrency: Math.max(4, cores),
      },
    };

    const cold = await ourExport(deps, root, 'cold');
    const baselineMs = await baseline(sources, root);
    // One scene replaced by new content under the same key: a new ETag, so only that clip is re-rendered.
    await storage.putFile('bench/scene-2.mp4', sources.alternateScene, 'video/mp4');
    const changed = await ourExport(deps, root, 'one clip changed');
    const warm = await ourExport(deps, root, 'nothing changed');

    console.log('');
    console.log(`our export (cold cache):        ${seconds(cold.wallMs)}  = ${(TIMELINE_SEC / (cold.wallMs / 1000)).toFixed(2)}x realtime  ${describe(cold.result)}`);
    console.log(`one ffmpeg filter_complex:      ${seconds(baselineMs)}  = ${(TIMELINE_SEC / (baselineMs / 1000)).toFixed(2)}x realtime`);
    console.log(`ratio (single command / ours):  ${(baselineMs / cold.wallMs).toFixed(2)}`);
    console.log(`re-export, one clip changed:    ${seconds(changed.wallMs)}  = ${(TIMELINE_SEC / (changed.wallMs / 1000)).toFixed(2)}x realtime  ${describe(changed.result)}`);
    console.log(`re-export, nothing changed:     ${seconds(warm.wallMs)}  = ${(TIMELINE_SEC / (warm.wallMs / 1000)).toFixed(2)}x realtime  ${describe(warm.result)}`);
  } finally {
    if (keep) console.log(`kept ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
}

async function uploadSources(storage: PipelineDeps['storage'], sources: BenchSources): Promise<void> {
  await Promise.all([
    ...sources.scenes.map((file, i) => storage.putFile(`bench/scene-${i}.mp4`, file, 'video/mp4')),
    ...sources.voices.map((file, i) => storage.putFile(`bench/voice-${i}.m4a`, file, 'audio/mp4')),
    storage.putFile('bench/music.m4a', sources.music, 'audio/mp4'),
  ]);
}

function benchRequest(label: string): RenderRequest {
  const clips: TimelineClip[] = [];
  for (let i = 0; i < SCENES; i++) {
    clips.push({ track: 'video', idx: i, storage_key: `bench/scene-${i}.mp4`, kind: 'video', duration_sec: null, start_sec: null, volume: 1 });
    clips.push({ track: 'voice', idx: i, storage_key: `bench/voice-${i}.m4a`, kind: 'audio', duration_sec: null, start_sec: null, volume: 1 });
  }
  clips.push({ track: 'music', idx: 0, storage_key: 'bench/music.m4a', kind: 'audio', duration_sec: null, start_sec: null, volume: 0.6 });
  return { user_id: 1, project_id: 'prj_bench', video_id: `vid_${label.replace(/\W+/g, '_')}`, width: WIDTH, height: HEIGHT, fit: 'fit', clips, output_key: `bench/out-${label.replace(/\W+/g, '-')}.mp4` };
}

/** The export pipeline as the service runs it, in its own scratch dir; wall time includes download and upload. */
async function ourExport(deps: PipelineDeps, root: string, label: string): Promise<{ wallMs: number; result: PipelineResult }> {
  const start = Date.now();
  const workDir = await mkdtemp(path.join(root, 'export-'));
  try {
    const result = await runPipeline(deps, benchRequest(label), workDir, new AbortController().signal, silentLogger());
    return { wallMs: Date.now() - start, result };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The same work as one ffmpeg command (the straightforward way), timed end to end. */
async function baseline(sources: BenchSources, root: string): Promise<number> {
  const out = path.join(root, 'baseline.mp4');
  const start = Date.now();
  await run(ffmpegPath, baselineArgs(sources, out), { maxBuffer: 64 * 1024 * 1024 });
  const ms = Date.now() - start;
  const { stdout } = await run(ffprobePath, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', out]);
  console.log(`baseline output: ${Number(stdout).toFixed(3)} s`);
  return ms;
}

function describe(r: PipelineResult): string {
  const s = r.stages;
  return `[${r.reply.duration_sec.toFixed(2)} s out, cache ${r.cacheHits} hit / ${r.cacheMisses} miss; fetch ${seconds(s.fetch)}, normalise ${seconds(s.normalise)}, join+mix ${seconds(s.mix)}, upload ${seconds(s.upload)}]`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const firstLine = (text: string) => text.split('\n')[0].replace(/ Copyright.*/, '');

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
