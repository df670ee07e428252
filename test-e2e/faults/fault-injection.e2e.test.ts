import { describeUnderFire } from '../support/faults/under-fire';

// The fleet under fire with one route per model (docs/fault-injection.md).
describeUnderFire('one route: fal', 1);
