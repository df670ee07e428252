import { describeUnderFire } from '../support/faults/under-fire';

// The fleet under fire with two routes per model, so jobs also fall through routes (docs/fault-injection.md).
// Routing lives in jobs and rides the broker: those two are killed here; the one-route run kills every part.
describeUnderFire('two routes: replicate then fal', 2, ['jobs', 'rabbitmq']);
