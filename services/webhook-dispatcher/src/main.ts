import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { loadWebhookDispatcherConfig, usesDevSecretKey } from './config';
import { startDispatcher } from './dispatcher';

runMain('webhook-dispatcher', loadWebhookDispatcherConfig, (config, logger) => ({
  schema: 'webhooks',
  migrations,
  setup: async ({ db, bus, registry }) => {
    if (usesDevSecretKey(config)) {
      logger.warn(
        'WEBHOOK_SECRET_KEY is the development default: signing secrets are encrypted with a key published in the source code; set it in production',
      );
    }
    const dispatcher = await startDispatcher({ config, db, bus, logger, registry });
    // Before the bus closes: a failed attempt still hands its retry to the broker.
    return [{ name: 'webhook lanes', run: () => dispatcher.stop(Date.now() + config.SHUTDOWN_TIMEOUT_MS / 2) }];
  },
}));
