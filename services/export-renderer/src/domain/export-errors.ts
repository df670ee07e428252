import { EXPORT_ERROR_KIND, type ExportErrorCode } from '@mf/contracts';
import { AppError, type ErrorDetails } from '@mf/errors';

/** What the end user reads: no paths, keys or encoder output. */
const DEFAULT_MESSAGES: Record<ExportErrorCode, string> = {
  no_video_clips: 'The timeline has no video clips to export. Add a video or image clip first.',
  corrupt_source: 'A source clip could not be decoded. Replace or remove it and export again.',
  rate_limited: 'Too many exports in the last minute. Try again shortly.',
  ffmpeg_failed: 'Rendering the video failed. Please try again.',
  export_failed: 'The export failed unexpectedly. Please try again.',
  source_fetch_failed: 'A source clip could not be fetched from storage. Try again shortly.',
  storage_unconfigured: 'Export storage is unavailable right now. Try again later.',
  export_timeout: 'The project is too long to render in one pass. Split it into shorter videos and export each.',
  ffmpeg_timeout: 'Rendering a clip took too long. Split the project into shorter videos and export each.',
  export_unavailable: 'Exporting is temporarily unavailable. Try again in a moment.',
};

/** An export failure as the contract shapes it: `{ error: <code>, message }` of the code's kind. */
export function exportError(
  code: ExportErrorCode,
  message = DEFAULT_MESSAGES[code],
  details: ErrorDetails = {},
): AppError {
  return new AppError(EXPORT_ERROR_KIND[code], { error: code, message }, details);
}

/** The export error code an AppError carries, if it is one of ours. */
export function exportErrorCode(err: AppError): ExportErrorCode | null {
  const code = err.body.error;
  return Object.prototype.hasOwnProperty.call(EXPORT_ERROR_KIND, code) ? (code as ExportErrorCode) : null;
}

/** How a message names a clip, at the start of a sentence: its track and position, as the editor shows them. */
export function clipLabel(clip: { track: string; idx: number }): string {
  return `The ${clip.track} clip at position ${clip.idx}`;
}
