/**
 * How far the pictures of one export are, as a fraction of the frames to make: each part (a picture
 * of the timeline, by its render key) counts the frames ffmpeg says it encoded, and a picture found
 * in the cache counts whole at once. Reports only when the fraction grew.
 */
export class ProgressMeter {
  private readonly done = new Map<string, number>();
  private sum = 0;
  private reported = 0;

  constructor(
    private readonly totalFrames: number,
    private readonly report: (fraction: number) => void,
  ) {}

  /** This part has `frames` of its frames made (never fewer than it said before). */
  set(part: string, frames: number): void {
    const before = this.done.get(part) ?? 0;
    if (frames <= before) return;
    this.done.set(part, frames);
    this.sum += frames - before;
    const fraction = this.totalFrames > 0 ? Math.min(1, this.sum / this.totalFrames) : 1;
    if (fraction <= this.reported) return;
    this.reported = fraction;
    this.report(fraction);
  }
}

/**
 * The percent a client sees, from the pictures' fraction: 2-90 while they are made (most of the
 * work), 95 once joined; the editor says 100 when the export is recorded. Throttled to one report a
 * second, except the last steps.
 */
export function percentReporter(
  publish: (percent: number) => void,
  now: () => number = Date.now,
  minIntervalMs = 1000,
): { pictures: (fraction: number) => void; joined: () => void } {
  let last = -1;
  let lastAt = -Infinity;
  const emit = (percent: number, force: boolean) => {
    if (percent <= last) return;
    if (!force && now() - lastAt < minIntervalMs) return;
    last = percent;
    lastAt = now();
    publish(percent);
  };
  return {
    pictures: (fraction) => emit(2 + Math.floor(fraction * 88), false),
    joined: () => emit(95, true),
  };
}
