import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { FfmpegError, probe, runFfmpeg } from '@mf/media';
import type { VideoSegment } from '../domain/timeline';
import { clipEncoderArgs, copyVideoArgs, fileArg, type OutputSpec } from './ffmpeg-args';

export interface CopyOptions {
  ffmpegPath: string;
  ffprobePath: string;
  stepTimeoutMs: number;
  /** Scratch dir for the header checks. */
  workDir: string;
}

/**
 * Whether a clip's picture may be copied instead of encoded: an H.264 video of exactly the output
 * size and rate, played whole (no cut: copying a cut would have to drop frames that later B-frames
 * need). The headers are compared next (`copyIfSameFormat`).
 */
export function isCopyCandidate(segment: VideoSegment, spec: OutputSpec): boolean {
  const { probe: p } = segment.source;
  const cut = segment.clip.duration_sec;
  return (
    !segment.still &&
    p.video?.codec === 'h264' &&
    p.video.width === spec.width &&
    p.video.height === spec.height &&
    Math.abs(p.video.fps - spec.fps) < 1e-6 &&
    (cut === null || cut >= p.durationSec) &&
    segment.frames === Math.round(p.durationSec * spec.fps)
  );
}

/**
 * Copies the picture into `outFile` when it is already what our encoder would write: its SPS and
 * PPS byte-identical to ours for this spec (so the concat demuxer can join it with encoded clips
 * under one set of headers) and, once copied, exactly the clip's frame count. Typically a previous
 * export placed in a timeline of the same shape. Returns false, having written nothing the caller
 * needs, when it must be encoded instead.
 */
export async function copyIfSameFormat(
  segment: VideoSegment,
  input: string,
  spec: OutputSpec,
  outFile: string,
  opts: CopyOptions,
  signal: AbortSignal,
): Promise<boolean> {
  const theirs = await headersOf(
    input,
    path.join(opts.workDir, `headers-${path.basename(outFile)}.h264`),
    opts,
    signal,
  );
  if (!theirs) return false;
  // Made under another export's signal, the reference may have been stopped with it: then once more under ours.
  const ours = await referenceHeaders(spec, opts, signal).catch(() => referenceHeaders(spec, opts, signal));
  if (theirs !== ours) return false;
  await runFfmpeg(copyVideoArgs(input, spec, outFile), {
    ffmpegPath: opts.ffmpegPath,
    timeoutMs: opts.stepTimeoutMs,
    signal,
  });
  const copied = await probe(outFile, { ffprobePath: opts.ffprobePath, timeoutMs: opts.stepTimeoutMs, signal });
  if (Math.abs(copied.durationSec * spec.fps - segment.frames) < 0.5) return true;
  await rm(outFile, { force: true });
  return false;
}

/** Our encoder's headers per spec, made once per process (one black frame encoded with the clips' settings). */
const references = new Map<string, Promise<string | null>>();

function referenceHeaders(spec: OutputSpec, opts: CopyOptions, signal: AbortSignal): Promise<string | null> {
  const id = `${opts.ffmpegPath}|${spec.width}x${spec.height}@${spec.fps}`;
  let made = references.get(id);
  if (!made) {
    const file = path.join(opts.workDir, `reference-${spec.width}x${spec.height}.mov`);
    made = runFfmpeg(
      [
        '-f',
        'lavfi',
        '-i',
        `color=c=black:s=${spec.width}x${spec.height}:r=${spec.fps}`,
        '-frames:v',
        '1',
        ...clipEncoderArgs(spec.fps),
        '-f',
        'mov',
        '-y',
        fileArg(file),
      ],
      {
        ffmpegPath: opts.ffmpegPath,
        timeoutMs: opts.stepTimeoutMs,
        signal,
      },
    ).then(() => headersOf(file, `${file}.h264`, opts, signal));
    // A failed attempt (say, stopped by its export's timeout) is tried again by the next export.
    made.catch(() => references.delete(id));
    references.set(id, made);
  }
  return made;
}

/**
 * The SPS and PPS of a file's first video stream, hex, as ffmpeg writes them before its first
 * frame; null when it has none or they cannot be read (the clip is then encoded, and a damaged
 * file reported by that step).
 */
async function headersOf(
  input: string,
  scratch: string,
  opts: CopyOptions,
  signal: AbortSignal,
): Promise<string | null> {
  try {
    await runFfmpeg(
      [
        '-v',
        'error',
        '-i',
        fileArg(input),
        '-map',
        '0:v:0',
        '-c:v',
        'copy',
        '-bsf:v',
        'h264_mp4toannexb',
        '-frames:v',
        '1',
        '-f',
        'h264',
        '-y',
        fileArg(scratch),
      ],
      {
        ffmpegPath: opts.ffmpegPath,
        timeoutMs: opts.stepTimeoutMs,
        signal,
      },
    );
    const units = nalUnits(await readFile(scratch)).filter((u) => [7, 8].includes(u[0] & 0x1f));
    return units.length > 0 ? units.map((u) => u.toString('hex')).join('/') : null;
  } catch (err) {
    if (err instanceof FfmpegError && err.kind === 'failed') return null;
    throw err;
  } finally {
    await rm(scratch, { force: true });
  }
}

/** Splits an Annex B byte stream into its NAL units (start codes 00 00 01 or 00 00 00 01 removed). */
export function nalUnits(stream: Buffer): Buffer[] {
  const starts: Array<{ at: number; len: number }> = [];
  for (let i = 0; i + 2 < stream.length; i++) {
    if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) {
      const long = i > 0 && stream[i - 1] === 0;
      starts.push({ at: long ? i - 1 : i, len: long ? 4 : 3 });
      i += 2;
    }
  }
  return starts.map((s, n) => stream.subarray(s.at + s.len, n + 1 < starts.length ? starts[n + 1].at : stream.length));
}
