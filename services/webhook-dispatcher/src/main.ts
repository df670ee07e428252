import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { loadWebhookDispatcherConfig } from './config';

// Foundation only: starts, migrates its schema, connects to the broker, serves health and metrics.
runMain('webhook-dispatcher', loadWebhookDispatcherConfig, () => ({
  schema: 'webhooks',
  migrations,
  setup: async () => undefined,
}));
