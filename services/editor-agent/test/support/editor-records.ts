import { Bus } from '@mf/bus';
import { createDb, migrate, type Knex } from '@mf/db';
import { probe } from '@mf/media';
import type { Storage } from '@mf/storage';
import { freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';
import { migrations } from '../../migrations';
import type { AudioGenerator } from '../../src/media/audio';
import type { EditorContext, EditorSettings } from '../../src/usecases/context';

/** The editor's settings in its integration tests (the contract's prices). */
export const TEST_SETTINGS: Readonly<EditorSettings> = {
  publicBaseUrl: 'https://api.test',
  turnPrice: 5,
  voicePrice: 10,
  musicPrice: 20,
  sfxPrice: 10,
  agentMaxSteps: 8,
  agentMaxWallMs: 60_000,
  mediaWaitMs: 60_000,
  mediaPollMs: 100,
  turnLockWaitMs: 1000,
  importMaxBytes: 1e7,
};

const unused = async (): Promise<never> => Promise.reject(new Error('unused'));

/** Audio for tests that make none. */
export const NO_AUDIO: AudioGenerator = { voice: unused, music: unused, sfx: unused };

export interface EditorRecords {
  env: TestEnv;
  /** The editor's schema, migrated. */
  db: Knex;
  /** The editor's bus on the test vhost, not started (a test that needs it starts it). */
  bus: Bus;
  /** A context on these records: no model, no audio, ffprobe, and downloads that fail unless given. */
  context: (parts: { storage: Storage } & Partial<EditorContext>) => EditorContext;
  close: () => Promise<void>;
}

/** The editor's records against the real database and broker: a fresh database and vhost each. */
export async function editorRecords(): Promise<EditorRecords> {
  const env = await freshTestEnv();
  const db = createDb({ url: env.databaseUrl, schema: 'editor' });
  await migrate(db, 'editor', migrations);
  const bus = new Bus({ url: env.amqpUrl, service: 'editor-agent', logger: silentLogger() });
  return {
    env,
    db,
    bus,
    context: (parts) => ({
      db,
      bus,
      logger: silentLogger(),
      settings: { ...TEST_SETTINGS },
      download: unused,
      probe: (file) => probe(file, { ffprobePath: 'ffprobe' }),
      llm: null,
      audio: NO_AUDIO,
      ...parts,
    }),
    close: async () => {
      await bus.close();
      await db.destroy();
      await env.teardown();
    },
  };
}
