/** Messages a client may see: nothing from ffmpeg, no paths. */
export const LOCAL_ERRORS = {
  fetch: 'reference image could not be fetched',
  render: 'rendering failed',
  timeout: 'rendering timed out',
  cancelled: 'cancelled',
  unknown: 'unknown request',
} as const;

/** A failure whose client-safe message is already chosen. */
export class RenderFailure extends Error {
  constructor(
    readonly safeMessage: string,
    options?: { cause?: unknown },
  ) {
    super(safeMessage, options);
    this.name = 'RenderFailure';
  }
}
