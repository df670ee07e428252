import { describeUnderFire } from '../support/faults/under-fire';

// The fleet under fire with two routes per model, so jobs also fall through routes (docs/fault-injection.md).
describeUnderFire('two routes: replicate then fal', 2);
