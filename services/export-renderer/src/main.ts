import { runMain } from '@mf/runtime';
import { createStorage, storageConfigFromEnv } from '@mf/storage';
import { migrations } from '../migrations';
import { loadExportRendererConfig } from './config';
import { serveExportsRpc } from './messaging/exports-rpc.server';
import { createExportContext } from './usecases/context';

runMain('export-renderer', loadExportRendererConfig, (config, logger) => ({
  schema: 'exports',
  migrations,
  setup: async ({ db, bus }) => {
    const storage = createStorage(storageConfigFromEnv(config));
    // Not fatal: with storage down the service still starts and each export answers 503
    // storage_unconfigured (its check runs again per export).
    await storage
      .check()
      .catch((err: unknown) =>
        logger.warn({ err }, 'storage fails its check at start; exports will answer 503 until it recovers'),
      );
    await serveExportsRpc(bus, createExportContext(config, { db, storage, logger }));
  },
}));
