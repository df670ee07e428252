import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** A counting rule: `points` per `durationSec`. */
export interface ThrottleRule {
  points: number;
  durationSec: number;
}

export interface ThrottleRules {
  /** Sign-in attempts per email and IP (a success clears it): guessing one account's password. */
  perAccount: ThrottleRule;
  /** Failed sign-ins per IP, whatever the email: password spraying over many accounts. */
  failuresPerIp: ThrottleRule;
  /** Sign-up attempts per IP: mass account creation, and probing which emails are registered. */
  signUpsPerIp: ThrottleRule;
}

export const DEFAULT_THROTTLE_RULES: ThrottleRules = {
  perAccount: { points: 5, durationSec: 15 * 60 },
  failuresPerIp: { points: 30, durationSec: 15 * 60 },
  signUpsPerIp: { points: 10, durationSec: 60 * 60 },
};

/** Builds the counter of one rule on the gateway's rate-limit store (memory, Postgres or Redis). */
export type CounterFactory = (rule: ThrottleRule & { name: string }) => RateLimiterAbstract;

/** Counters in this process's memory (tests, and RATE_LIMIT_STORE=memory). */
export const memoryCounters: CounterFactory = (rule) =>
  new RateLimiterMemory({ points: rule.points, duration: rule.durationSec });

/** Seconds until `res` allows again (at least 1). */
const waitOf = (res: RateLimiterRes): number => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/** Takes a point: 0 when allowed, else the seconds to wait. A store failure passes through. */
async function take(counter: RateLimiterAbstract, key: string): Promise<number> {
  try {
    await counter.consume(key, 1);
    return 0;
  } catch (err) {
    if (err instanceof RateLimiterRes) return waitOf(err);
    throw err;
  }
}

/**
 * The dashboard's sign-in and sign-up throttles. Every attempt takes its points before the
 * password is checked, so parallel guesses cannot slip past the counts; a successful sign-in
 * clears its account's count and gives its point back to the IP, so only failures add up there.
 * The counters live on the same store as the API's rate limit (shared by replicas unless memory).
 */
export class LoginThrottle {
  private readonly perAccount: RateLimiterAbstract;
  private readonly failuresPerIp: RateLimiterAbstract;
  private readonly signUpsPerIp: RateLimiterAbstract;

  constructor(counters: CounterFactory = memoryCounters, rules: ThrottleRules = DEFAULT_THROTTLE_RULES) {
    this.perAccount = counters({ name: 'signin-account', ...rules.perAccount });
    this.failuresPerIp = counters({ name: 'signin-ip', ...rules.failuresPerIp });
    this.signUpsPerIp = counters({ name: 'signup-ip', ...rules.signUpsPerIp });
  }

  static accountKey(email: string, ip: string): string {
    return `${email.trim().toLowerCase()}|${ip}`;
  }

  /** Takes a sign-in attempt: 0 when allowed, else the seconds until the next attempt is. */
  async signInAttempt(email: string, ip: string): Promise<number> {
    const [account, address] = await Promise.all([
      take(this.perAccount, LoginThrottle.accountKey(email, ip)),
      take(this.failuresPerIp, ip),
    ]);
    return Math.max(account, address);
  }

  async signInSucceeded(email: string, ip: string): Promise<void> {
    await Promise.all([this.perAccount.delete(LoginThrottle.accountKey(email, ip)), this.failuresPerIp.reward(ip, 1)]);
  }

  /** Takes a sign-up attempt: 0 when allowed, else the seconds to wait. */
  signUpAttempt(ip: string): Promise<number> {
    return take(this.signUpsPerIp, ip);
  }
}
