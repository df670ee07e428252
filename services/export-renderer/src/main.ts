import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { loadExportRendererConfig } from './config';

// Foundation only: starts, migrates its schema, connects to the broker, serves health and metrics.
runMain('export-renderer', loadExportRendererConfig, () => ({
  schema: 'exports',
  migrations,
  setup: async () => undefined,
}));
