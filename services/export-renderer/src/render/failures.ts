import type { TimelineClip } from '@mf/contracts';
import { AppError, isAppError } from '@mf/errors';
import type { Logger } from '@mf/logger';
import { FfmpegError } from '@mf/media';
import { clipLabel, exportError } from '../domain/export-errors';
import { AbortedError } from './limiter';

/**
 * What ffmpeg prints when it is the input that is broken (with `-xerror` these end the run); any
 * other failure is ours. Read only to choose the code: the text itself never reaches the user.
 */
const INPUT_ERRORS = [
  /corrupt input packet/i,
  /error while decoding/i,
  /invalid data found when processing input/i,
  /partial file/i,
  /moov atom not found/i,
  /invalid nal unit/i,
  /error splitting the input/i,
  /could not find codec parameters/i,
  /decode_slice_header error/i,
];

/**
 * Turns a failed ffmpeg step into what the export reports: a stop (abort) stays an abort, a step
 * timeout stays an FfmpegError (504 ffmpeg_timeout later), a broken input of a clip becomes 422
 * corrupt_source naming the clip, anything else 500 ffmpeg_failed. The stderr tail is logged here.
 */
export function stepFailure(err: unknown, step: string, logger: Logger, clip?: TimelineClip): unknown {
  if (!(err instanceof FfmpegError)) return err;
  if (err.kind === 'aborted') return new AbortedError();
  const where = clip ? { track: clip.track, idx: clip.idx } : {};
  logger.warn(
    { step, kind: err.kind, exitCode: err.exitCode, exitSignal: err.exitSignal, stderrTail: err.stderrTail, ...where },
    `export: ffmpeg ${step} failed`,
  );
  if (err.kind === 'timeout') return err;
  if (err.kind === 'failed' && clip && INPUT_ERRORS.some((re) => re.test(err.stderrTail))) {
    return exportError(
      'corrupt_source',
      `${clipLabel(clip)} could not be decoded. Replace or remove it and export again.`,
    );
  }
  return exportError('ffmpeg_failed');
}

/**
 * The AppError an export ends with. A passed export deadline wins over whatever the stopped work
 * threw on its way out; unexpected errors become 500 export_failed (and are logged by the caller).
 */
export function toExportError(err: unknown, exportTimedOut: boolean): AppError {
  if (exportTimedOut) return exportError('export_timeout');
  if (isAppError(err)) return err;
  if (err instanceof FfmpegError) return exportError(err.kind === 'timeout' ? 'ffmpeg_timeout' : 'ffmpeg_failed');
  return exportError('export_failed');
}
