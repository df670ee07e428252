import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { loadJobsConfig } from './config';

// Foundation only: starts, migrates its schema, connects to the broker, serves health and metrics.
runMain('jobs', loadJobsConfig, () => ({
  schema: 'jobs',
  migrations,
  setup: async () => undefined,
}));
