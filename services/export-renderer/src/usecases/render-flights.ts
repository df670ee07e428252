/**
 * The renders running now in this process, by user and render key, so an identical export waits for
 * the first instead of rendering again, and a count of finished ones, so a lookup that raced a render
 * finishing between its read and its check can tell it must look again.
 */
export class RenderFlights {
  private readonly running = new Map<string, Promise<void>>();
  private done = 0;

  /** How many renders have finished so far. */
  get finished(): number {
    return this.done;
  }

  get(flight: string): Promise<void> | undefined {
    return this.running.get(flight);
  }

  /** Records `render` as running under `flight`; it counts as finished when it settles. */
  start(flight: string, render: Promise<unknown>): void {
    this.running.set(
      flight,
      render.then(
        () => undefined,
        () => undefined,
      ),
    );
  }

  /** The render under `flight` has ended (its result recorded or not). */
  end(flight: string): void {
    this.running.delete(flight);
    this.done++;
  }
}
