import type { BreakerSettings } from './providers-document';

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * A provider's circuit breaker, per process: `failures` attempt failures in a row open it, and while
 * open the provider is skipped, so a dead upstream does not add its timeout to every job. After the
 * cool-down it is half-open: attempts go through again, the first success closes it and a failure
 * opens it for another cool-down. Replicas learn on their own (no shared state to lose).
 */
export class CircuitBreaker {
  private consecutive = 0;
  private openedAt: number | null = null;

  constructor(
    private readonly settings: BreakerSettings,
    private readonly now: () => number = Date.now,
    private readonly onChange?: (state: CircuitState) => void,
  ) {}

  get state(): CircuitState {
    if (this.openedAt === null) return 'closed';
    return this.now() - this.openedAt < this.settings.cooldownMs ? 'open' : 'half-open';
  }

  /** Whether an attempt may go to this provider now. */
  allows(): boolean {
    return this.state !== 'open';
  }

  /** When an open circuit lets attempts through again (null when it is not open). */
  get retryAt(): Date | null {
    return this.state === 'open' ? new Date(this.openedAt! + this.settings.cooldownMs) : null;
  }

  success(): void {
    const was = this.state;
    this.consecutive = 0;
    this.openedAt = null;
    if (was !== 'closed') this.onChange?.('closed');
  }

  failure(): void {
    if (this.settings.failures <= 0) return;
    const was = this.state;
    this.consecutive += 1;
    // Half-open: one failure is enough to open it again.
    if (was === 'half-open' || this.consecutive >= this.settings.failures) {
      this.openedAt = this.now();
      if (was !== 'open') this.onChange?.('open');
    }
  }
}
