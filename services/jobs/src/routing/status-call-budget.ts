/**
 * How many status calls each upstream may still get now: at most `perSecond` of a provider's calls
 * in any one-second window (a sliding window, so a burst at the end of one second and another at the
 * start of the next never add up past the limit, as they would with a token bucket's burst). Per
 * process: every replica of the jobs service keeps its own.
 */
/** Slots taken at once: how many, and when. */
export interface Reservation {
  n: number;
  at: number;
}

export class StatusCallBudget {
  /** Per limited provider: the instants of its calls in the last second, oldest first. */
  private readonly recent = new Map<string, number[]>();

  constructor(
    private readonly limits: ReadonlyMap<string, number>,
    private readonly now: () => number = Date.now,
  ) {
    for (const [name, perSecond] of limits) {
      if (!Number.isInteger(perSecond) || perSecond < 1)
        throw new Error(`status calls per second of ${name} must be a positive integer`);
      this.recent.set(name, []);
    }
  }

  /** The providers that have a limit. */
  limited(): string[] {
    return [...this.limits.keys()];
  }

  /** Calls the provider may get now (Infinity for a provider without a limit). */
  available(provider: string): number {
    const calls = this.window(provider);
    return calls ? this.limits.get(provider)! - calls.length : Infinity;
  }

  /**
   * Takes up to `want` of the provider's calls now; `n` says how many it got: taken before the
   * caller's await, so rounds that run at once never share one slot.
   */
  reserve(provider: string, want: number): Reservation {
    const at = this.now();
    const calls = this.window(provider);
    if (!calls) return { n: want, at };
    const n = Math.max(0, Math.min(want, this.limits.get(provider)! - calls.length));
    for (let i = 0; i < n; i++) calls.push(at);
    return { n, at };
  }

  /**
   * Keeps `used` of a reservation's slots, counted from now (when the calls are made), and gives
   * the others back. The slots of other reservations are left as they are.
   */
  settle(provider: string, reservation: Reservation, used: number): void {
    const calls = this.window(provider);
    if (!calls) return;
    let left = reservation.n;
    for (let i = calls.length - 1; i >= 0 && left > 0; i--)
      if (calls[i] === reservation.at) {
        calls.splice(i, 1);
        left--;
      }
    const at = this.now();
    for (let i = 0; i < Math.min(used, reservation.n); i++) calls.push(at);
  }

  /** Milliseconds until the provider may get a call again (0: now). */
  msUntilAvailable(provider: string): number {
    const calls = this.window(provider);
    if (!calls || calls.length < this.limits.get(provider)!) return 0;
    // The call that leaves the window first frees the next slot.
    return Math.max(1, calls[calls.length - this.limits.get(provider)!] + 1000 - this.now());
  }

  /** Milliseconds until the first provider with no call left now gets one again; null when none is out. */
  msUntilNextFrees(): number | null {
    const waits = this.limited()
      .filter((p) => this.available(p) <= 0)
      .map((p) => this.msUntilAvailable(p));
    return waits.length ? Math.min(...waits) : null;
  }

  private window(provider: string): number[] | undefined {
    const calls = this.recent.get(provider);
    if (!calls) return undefined;
    const since = this.now() - 1000;
    let drop = 0;
    while (drop < calls.length && calls[drop] <= since) drop++;
    if (drop) calls.splice(0, drop);
    return calls;
  }
}

/**
 * The limits of a routing: every provider that calls an upstream (all but local, which renders in
 * this process) gets its own `status_calls_per_second`, or `fallback`; a fallback of 0 leaves the
 * providers without their own value unlimited.
 */
export function statusCallLimits(
  specs: Iterable<{ name: string; type: string; statusCallsPerSecond?: number }>,
  fallback: number,
): Map<string, number> {
  const limits = new Map<string, number>();
  for (const spec of specs) {
    if (spec.type === 'local') continue;
    const perSecond = spec.statusCallsPerSecond ?? fallback;
    if (perSecond > 0) limits.set(spec.name, perSecond);
  }
  return limits;
}
