import type * as Faults from './faults';
import type { FaultPoint } from './faults';
import type { Provider } from './providers/provider';

/**
 * What the production build has in place of faults.ts (scripts/build swaps a module for its
 * `.production.ts` sibling): no fault point exists, so FAULT_POINTS names an unknown one, and no
 * provider is ever wrapped. Same exports, checked below, so main.ts builds either way.
 */
export const FAULT_POINTS: readonly FaultPoint[] = [];

export function isFaultPoint(_name: string): _name is FaultPoint {
  return false;
}

export function withFaultPoints(provider: Provider): Provider {
  return provider;
}

export function injectFaults(): void {}

// Every export of faults.ts, with a compatible type: a change there that this file misses fails the type check.
void ({ FAULT_POINTS, isFaultPoint, withFaultPoints, injectFaults } satisfies typeof Faults);
