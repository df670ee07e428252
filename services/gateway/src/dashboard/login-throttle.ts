import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface ThrottleOptions {
  /** Failed sign-ins allowed per email and IP within the window (spec: 5). */
  maxFailures: number;
  /** The window, seconds (spec: 15 min). */
  windowSec: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { maxFailures: 5, windowSec: 15 * 60 };

/**
 * Counts sign-in attempts per email+IP in memory (one gateway process; a shared store would need
 * rate-limiter-flexible's Postgres or Redis limiter behind the same calls). Each attempt takes a
 * point before the password is checked, so parallel guesses cannot slip past the count; a success
 * clears the key.
 */
export class LoginThrottle {
  private readonly limiter: RateLimiterMemory;

  constructor(opts: ThrottleOptions = DEFAULT_THROTTLE) {
    this.limiter = new RateLimiterMemory({ points: opts.maxFailures, duration: opts.windowSec });
  }

  static key(email: string, ip: string): string {
    return `${email.trim().toLowerCase()}|${ip}`;
  }

  /** Takes an attempt: 0 when allowed, else the seconds until the next attempt is. */
  async attempt(key: string): Promise<number> {
    try {
      await this.limiter.consume(key, 1);
      return 0;
    } catch (err) {
      if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw err;
    }
  }

  async succeeded(key: string): Promise<void> {
    await this.limiter.delete(key);
  }
}
