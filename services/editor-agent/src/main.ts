import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { loadEditorAgentConfig } from './config';

// Foundation only: starts, migrates its schema, connects to the broker, serves health and metrics.
runMain('editor-agent', loadEditorAgentConfig, () => ({
  schema: 'editor',
  migrations,
  setup: async () => undefined,
}));
