/**
 * How many status calls each upstream may still get now: at most `perSecond` of a provider's calls
 * in any one-second window (a sliding window, so a burst at the end of one second and another at the
 * start of the next never add up past the limit, as they would with a token bucket's burst). Per
 * process: every replica of the jobs service keeps its own.
 *
 * Paced (`pacing`), the calls are also spread over the second: at most `roundSize` at once, then no
 * more until their share of the second (n / perSecond s) has passed, and the window is `marginMs`
 * longer than a second. Unpaced, a second's calls went out in back-to-back rounds and the next
 * second's burst started the instant the first burst left the window, so the arrival jitter of one
 * round put it into the same second at the upstream; paced, no burst meets the next, and a call
 * arriving up to `marginMs` late still finds the limit kept in every second at the upstream.
 */
export interface Pacing {
  /** The most calls let out at once (the poller's POLL_BATCH). */
  roundSize: number;
  /** Arrival jitter allowed for at the upstream, ms. */
  marginMs: number;
}

/** The jobs service's pacing: rounds of POLL_BATCH, 50 ms of jitter allowed for. */
export const pacingFor = (pollBatch: number): Pacing => ({ roundSize: pollBatch, marginMs: 50 });

/** Slots taken at once: how many, and when. */
export interface Reservation {
  n: number;
  at: number;
}

export class StatusCallBudget {
  /** Per limited provider: the instants of its calls in the last window, oldest first. */
  private readonly recent = new Map<string, number[]>();
  /** Per limited provider (paced): the instant its next calls may go out. */
  private readonly nextAt = new Map<string, number>();
  /** Limited providers whose last reservation got fewer calls than it wanted: jobs may be waiting. */
  private readonly shortOf = new Set<string>();
  private readonly windowMs: number;

  constructor(
    private readonly limits: ReadonlyMap<string, number>,
    private readonly now: () => number = Date.now,
    private readonly pacing?: Pacing,
  ) {
    this.windowMs = 1000 + (pacing?.marginMs ?? 0);
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
    if (!calls) return Infinity;
    if (this.paceWait(provider) > 0) return 0;
    const left = this.limits.get(provider)! - calls.length;
    return this.pacing ? Math.min(left, this.pacing.roundSize) : left;
  }

  /**
   * Takes up to `want` of the provider's calls now; `n` says how many it got: taken before the
   * caller's await, so rounds that run at once never share one slot.
   */
  reserve(provider: string, want: number): Reservation {
    const at = this.now();
    const calls = this.window(provider);
    if (!calls) return { n: want, at };
    const n = Math.max(0, Math.min(want, this.available(provider)));
    if (n < want) this.shortOf.add(provider);
    else this.shortOf.delete(provider);
    for (let i = 0; i < n; i++) calls.push(at);
    if (n > 0) this.pace(provider, at, n);
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
    // Paced from when the calls are made too; slots given back free their share of the second
    // (a later reservation's pace stands).
    if (!this.pacing || reservation.n <= 0) return;
    const kept = Math.min(used, reservation.n);
    const own = reservation.at + this.share(provider, reservation.n);
    const next = this.nextAt.get(provider);
    if (next !== own) {
      if (kept > 0) this.nextAt.set(provider, Math.max(next ?? 0, at + this.share(provider, kept)));
    } else if (kept > 0) this.nextAt.set(provider, at + this.share(provider, kept));
    else this.nextAt.delete(provider);
  }

  /** Milliseconds until the provider may get a call again (0: now). */
  msUntilAvailable(provider: string): number {
    const calls = this.window(provider);
    if (!calls) return 0;
    const paced = this.paceWait(provider);
    if (calls.length < this.limits.get(provider)!) return paced;
    // The call that leaves the window first frees the next slot.
    return Math.max(1, paced, calls[calls.length - this.limits.get(provider)!] + this.windowMs - this.now());
  }

  /** n calls made at `at` hold the provider's next ones back for their share of the second. */
  private pace(provider: string, at: number, n: number): void {
    if (this.pacing) this.nextAt.set(provider, at + this.share(provider, n));
  }

  /** n calls' share of the second, ms. */
  private share(provider: string, n: number): number {
    return (n * 1000) / this.limits.get(provider)!;
  }

  private paceWait(provider: string): number {
    const next = this.nextAt.get(provider);
    return next === undefined ? 0 : Math.max(0, Math.ceil(next - this.now()));
  }

  /** Milliseconds until the first provider with no call left now gets one again; null when none is out. */
  msUntilNextFrees(): number | null {
    const waits = this.limited()
      .filter((p) => this.available(p) <= 0)
      .map((p) => this.msUntilAvailable(p));
    return waits.length ? Math.min(...waits) : null;
  }

  /**
   * Milliseconds until the first provider whose last reservation came up short has a call again
   * (0: now); null when none did. The poller's next round is due then: a round that found the
   * pace or the limit in the way may have left due jobs, though its limit frees while it claims.
   */
  msUntilWanted(): number | null {
    const waits = [...this.shortOf].map((p) => this.msUntilAvailable(p));
    return waits.length ? Math.min(...waits) : null;
  }

  private window(provider: string): number[] | undefined {
    const calls = this.recent.get(provider);
    if (!calls) return undefined;
    const since = this.now() - this.windowMs;
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
