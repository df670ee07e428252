/**
 * Export benchmark: a 6-scene, 30 s, 1280x720 timeline (one voice line per scene, a music bed)
 * exported by the renderer's use case (as the exports.render RPC runs it: rate window, content
 * address, render, upload) with every cache cold, by ONE plain ffmpeg filter_complex command doing
 * the same work, by the use case again after one clip changed (warm caches), and once more with
 * nothing changed (answered from the stored result). Rounds alternate ours and the single command
 * so both meet the same machine load; figures are medians, ratios per round. No pass/fail.
 *
 *   node --import tsx bench/export/run.ts [--keep]      BENCH_EXPORT_ROUNDS (default 3)
 *
 * Libraries are imported from source, as the services consume them. Needs Postgres (a fresh
 * database, dropped afterwards), as the tests do.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { RenderReply, RenderRequest, TimelineClip } from '../../libs/contracts/src';
import { createDb, migrate } from '../../libs/db/src';
import { freshTestEnv } from '../../libs/testing/src';
import { silentLogger } from '../../libs/testing/src/logger';
import { resolveFfmpeg, resolveFfprobe } from '../../libs/media/src';
import { createStorage } from '../../libs/storage/src';
import { migrations } from '../../services/export-renderer/migrations';
import { loadExportRendererConfig } from '../../services/export-renderer/src/config';
import { createExportContext, type ExportContext } from '../../services/export-renderer/src/usecases/context';
import { renderExport } from '../../services/export-renderer/src/usecases/render-export.usecase';
import { envNumber, loadAverage } from '../lib/env';
import { SCENES, SCENE_SEC, WIDTH, HEIGHT, FPS, makeBenchSources, type BenchSources } from './sources';
import { baselineArgs } from './baseline';

const run = promisify(execFile);
const ffmpegPath = resolveFfmpeg();
const ffprobePath = resolveFfprobe();
const TIMELINE_SEC = SCENES * SCENE_SEC;
const ROUNDS = envNumber('BENCH_EXPORT_ROUNDS', 3);

interface Round {
  cold: number;
  floor: number;
  /** CPU seconds of the ffmpeg/ffprobe processes: the work itself, whatever the machine's load. */
  coldCpu: number;
  floorCpu: number;
  changedCpu: number;
  changed: number;
  unchanged: number;
  notes: string[];
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'mf-export-bench-'));
  const keep = process.argv.includes('--keep');
  const env = await freshTestEnv();
  const db = createDb({ url: env.databaseUrl, schema: 'exports' });
  try {
    const cores = os.cpus().length;
    console.log(
      `export bench: ${SCENES} scenes x ${SCENE_SEC} s = ${TIMELINE_SEC} s at ${WIDTH}x${HEIGHT} ${FPS} fps, ${ROUNDS} rounds, ${cores} CPU cores, ${firstLine((await run(ffmpegPath, ['-version'])).stdout)}, load average ${loadAverage()}`,
    );
    await migrate(db, 'exports', migrations);
    const t = Date.now();
    const sources = await makeBenchSources(path.join(root, 'sources'), ffmpegPath);
    console.log(`sources generated in ${seconds(Date.now() - t)} (not counted)`);
    const storage = createStorage({ driver: 'local', dir: path.join(root, 'media') });

    const rounds: Round[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      await uploadSources(storage, sources);
      // A new process's worth of state each round: empty piece cache, probe cache and result table for this user.
      const ctx = createExportContext(
        loadExportRendererConfig({
          DATABASE_URL: env.databaseUrl,
          EXPORT_CACHE_DIR: path.join(root, `cache-${r}`),
          EXPORT_WORK_DIR: path.join(root, 'work'),
          EXPORT_RATE_LIMIT: '1000',
          EXPORT_FPS: String(FPS),
          // The binaries the single command runs, so both sides run the same ffmpeg.
          FFMPEG_PATH: ffmpegPath,
          FFPROBE_PATH: ffprobePath,
        }),
        { db, storage, logger: silentLogger() },
      );
      const notes: string[] = [];
      const cold = await ourExport(ctx, r, 'cold', notes);
      const floor = await baseline(sources, root, notes);
      // One scene replaced by new content under the same key: a new ETag, so only that clip (picture and sound) and the soundtrack are made again.
      await storage.putFile('bench/scene-2.mp4', sources.alternateScene, 'video/mp4');
      const changed = await ourExport(ctx, r, 'one clip changed', notes);
      const unchanged = await ourExport(ctx, r, 'nothing changed', notes);
      rounds.push({
        cold: cold.ms,
        floor: floor.ms,
        changed: changed.ms,
        unchanged: unchanged.ms,
        coldCpu: cold.cpu,
        floorCpu: floor.cpu,
        changedCpu: changed.cpu,
        notes,
      });
      console.log(
        `round ${r}: cold ${seconds(cold.ms)}, single command ${seconds(floor.ms)} (x${(floor.ms / cold.ms).toFixed(2)}), one clip changed ${seconds(changed.ms)} (x${(cold.ms / changed.ms).toFixed(2)} faster than cold), nothing changed ${seconds(unchanged.ms)}; load average ${loadAverage()}`,
      );
      for (const note of notes) console.log(`  ${note}`);
    }

    const med = (pick: (r: Round) => number) => median(rounds.map(pick));
    console.log('');
    console.log(`medians of ${rounds.length} rounds (ratios: median of the per-round ratios)`);
    console.log(
      `our export (cold caches):       ${seconds(med((r) => r.cold))}  = ${(TIMELINE_SEC / (med((r) => r.cold) / 1000)).toFixed(2)}x realtime`,
    );
    console.log(
      `one ffmpeg filter_complex:      ${seconds(med((r) => r.floor))}  = ${(TIMELINE_SEC / (med((r) => r.floor) / 1000)).toFixed(2)}x realtime`,
    );
    console.log(
      `ratio (single command / ours):  ${med((r) => r.floor / r.cold).toFixed(2)}   (per round: ${rounds.map((r) => (r.floor / r.cold).toFixed(2)).join(', ')})`,
    );
    console.log(
      `re-export, one clip changed:    ${seconds(med((r) => r.changed))}  = ${med((r) => r.cold / r.changed).toFixed(2)}x faster than cold   (per round: ${rounds.map((r) => (r.cold / r.changed).toFixed(2)).join(', ')})`,
    );
    console.log(
      `re-export, nothing changed:     ${seconds(med((r) => r.unchanged))}  (per round: ${rounds.map((r) => seconds(r.unchanged)).join(', ')})`,
    );
    console.log(
      `CPU of the ffmpeg processes:    cold ${cpu(med((r) => r.coldCpu))}, single command ${cpu(med((r) => r.floorCpu))} (ratio ${med((r) => r.floorCpu / r.coldCpu).toFixed(2)}), one clip changed ${cpu(med((r) => r.changedCpu))} (cold / changed ${med((r) => r.coldCpu / r.changedCpu).toFixed(2)})`,
    );
    console.log(`load average at the end: ${loadAverage()}`);
  } finally {
    await db.destroy();
    await env.teardown();
    if (keep) console.log(`kept ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
}

async function uploadSources(storage: ExportContext['storage'], sources: BenchSources): Promise<void> {
  await Promise.all([
    ...sources.scenes.map((file, i) => storage.putFile(`bench/scene-${i}.mp4`, file, 'video/mp4')),
    ...sources.voices.map((file, i) => storage.putFile(`bench/voice-${i}.m4a`, file, 'audio/mp4')),
    storage.putFile('bench/music.m4a', sources.music, 'audio/mp4'),
  ]);
}

function benchRequest(round: number, label: string): RenderRequest {
  const clips: TimelineClip[] = [];
  for (let i = 0; i < SCENES; i++) {
    clips.push({
      track: 'video',
      idx: i,
      storage_key: `bench/scene-${i}.mp4`,
      kind: 'video',
      duration_sec: null,
      start_sec: null,
      volume: 1,
    });
    clips.push({
      track: 'voice',
      idx: i,
      storage_key: `bench/voice-${i}.m4a`,
      kind: 'audio',
      duration_sec: null,
      start_sec: null,
      volume: 1,
    });
  }
  clips.push({
    track: 'music',
    idx: 0,
    storage_key: 'bench/music.m4a',
    kind: 'audio',
    duration_sec: null,
    start_sec: null,
    volume: 0.6,
  });
  const slug = label.replace(/\W+/g, '-');
  // One user per round: a round never finds an earlier round's stored result.
  return {
    user_id: round,
    project_id: 'prj_bench',
    video_id: `vid_${slug}`,
    width: WIDTH,
    height: HEIGHT,
    fit: 'fit',
    clips,
    output_key: `bench/out-${round}-${slug}.mp4`,
  };
}

/** The export use case as the RPC runs it; wall time includes stats, downloads, upload and the run row. */
async function ourExport(
  ctx: ExportContext,
  round: number,
  label: string,
  notes: string[],
): Promise<{ ms: number; cpu: number; reply: RenderReply }> {
  const req = benchRequest(round, label);
  const cpu0 = childrenCpuSec();
  const start = Date.now();
  const reply = await renderExport(ctx, req);
  const ms = Date.now() - start;
  const cpuSec = childrenCpuSec() - cpu0;
  const row = (await ctx.db('export_runs').first('*').where({ user_id: round, video_id: req.video_id })) as {
    reused?: boolean;
    cache_hits: number;
    cache_misses: number;
    clips_copied?: number;
  };
  const stored =
    reply.output_key === req.output_key ? 'new file' : `stored file of ${reply.output_key.replace(/^bench\//, '')}`;
  notes.push(
    `${label}: ${seconds(ms)} (ffmpeg CPU ${cpu(cpuSec)}), ${reply.duration_sec.toFixed(2)} s out, ${row.reused ? 'reused' : `pictures ${row.cache_hits} hit / ${row.cache_misses} made / ${row.clips_copied ?? 0} copied`}, ${stored}`,
  );
  return { ms, cpu: cpuSec, reply };
}

/** The same work as one ffmpeg command (the straightforward way), timed end to end. */
async function baseline(sources: BenchSources, root: string, notes: string[]): Promise<{ ms: number; cpu: number }> {
  const out = path.join(root, 'baseline.mp4');
  const cpu0 = childrenCpuSec();
  const start = Date.now();
  await run(ffmpegPath, baselineArgs(sources, out), { maxBuffer: 64 * 1024 * 1024 });
  const ms = Date.now() - start;
  const cpuSec = childrenCpuSec() - cpu0;
  const { stdout } = await run(ffprobePath, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', out]);
  notes.push(`single command: ${seconds(ms)} (ffmpeg CPU ${cpu(cpuSec)}), ${Number(stdout).toFixed(2)} s out`);
  return { ms, cpu: cpuSec };
}

/** User + system CPU seconds of this process's finished children (/proc/self/stat cutime + cstime, Linux). */
function childrenCpuSec(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 of proc(5), counted from 3 after the command name; in clock ticks (100 a second on Linux).
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const cpu = (sec: number) => `${sec.toFixed(1)} s`;
const firstLine = (text: string) => text.split('\n')[0].replace(/ Copyright.*/, '');

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
