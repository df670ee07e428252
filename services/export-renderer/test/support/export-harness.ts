import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { RenderRequest, TimelineClip } from '@mf/contracts';
import { createDb, migrate, type Knex } from '@mf/db';
import { createStorage, type Storage } from '@mf/storage';
import { freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';
import { migrations } from '../../migrations';
import { loadExportRendererConfig } from '../../src/config';
import { ProbeCache } from '../../src/render/probe-cache';
import { createExportContext, type ExportContext } from '../../src/usecases/context';
import { makeSources, type SourceFiles } from './sources';

export interface Harness {
  /** The fresh database and broker vhost of this test file. */
  env: TestEnv;
  db: Knex;
  storage: Storage;
  sources: SourceFiles;
  /** EXPORT_WORK_DIR of every context: empty again after each export. */
  workRoot: string;
  /** A context on the real config loader; each call gets its own cache dir unless EXPORT_CACHE_DIR is given. */
  context: (env?: Record<string, string>, storage?: Storage) => ExportContext;
  /** Stores a local file under a key, as the editor's assets are stored. */
  put: (key: string, file: string) => Promise<void>;
  /** Stores these generated sources under their usual keys (ASSET_KEYS). */
  putSources: (...names: Array<keyof typeof ASSET_KEYS>) => Promise<void>;
  /** Copies a stored object (an export's output) to a local file, for ffprobe. */
  fetchOutput: (key: string) => Promise<string>;
  teardown: () => Promise<void>;
}

/** Where each generated source is stored in the tests. */
export const ASSET_KEYS = {
  wide: 'assets/wide.mp4',
  tall: 'assets/tall.mp4',
  square: 'assets/square.mp4',
  still: 'assets/still.png',
  voiceA: 'assets/voice-a.m4a',
  voiceB: 'assets/voice-b.wav',
  music: 'assets/music.m4a',
  truncatedMoovAtEnd: 'assets/truncated.mp4',
  truncatedFaststart: 'assets/truncated-faststart.mp4',
} as const satisfies Partial<Record<keyof SourceFiles, string>>;

export async function createHarness(): Promise<Harness> {
  const env: TestEnv = await freshTestEnv();
  const root = await mkdtemp(path.join(tmpdir(), 'mf-export-test-'));
  const db = createDb({ url: env.databaseUrl, schema: 'exports' });
  await migrate(db, 'exports', migrations);
  const storage = createStorage({ driver: 'local', dir: path.join(root, 'media') });
  const workRoot = path.join(root, 'work');
  const sources = await makeSources(path.join(root, 'sources'));
  let caches = 0;
  // One for the file, as one process has one: what ffprobe said about a content (by its ETag) holds
  // in every context, and each ffprobe start costs a quarter of a CPU-second loading its libraries.
  const probes = new ProbeCache();
  return {
    env,
    db,
    storage,
    sources,
    workRoot,
    context: (overrides = {}, otherStorage) => {
      const config = loadExportRendererConfig({
        DATABASE_URL: env.databaseUrl,
        EXPORT_WORK_DIR: workRoot,
        EXPORT_CACHE_DIR: path.join(root, `cache-${++caches}`),
        ...overrides,
      });
      const ctx = createExportContext(config, { db, storage: otherStorage ?? storage, logger: silentLogger() });
      return { ...ctx, probes };
    },
    put: async (key, file) => {
      await storage.putFile(key, file, 'application/octet-stream');
    },
    putSources: async (...names) => {
      await Promise.all(
        names.map((name) => storage.putFile(ASSET_KEYS[name], sources[name], 'application/octet-stream')),
      );
    },
    fetchOutput: async (key) => {
      await mkdir(path.join(root, 'outputs'), { recursive: true });
      const file = path.join(root, 'outputs', path.basename(key));
      await pipeline(await storage.get(key), createWriteStream(file));
      return file;
    },
    teardown: async () => {
      await db.destroy();
      await env.teardown();
      await rm(root, { recursive: true, force: true });
    },
  };
}

let requests = 0;

/** An export request, by a new user unless given, with these clips (180x320, fit). */
export function renderRequest(clips: TimelineClip[], overrides: Partial<RenderRequest> = {}): RenderRequest {
  requests++;
  return {
    // A user per request, so no test meets another's rate window.
    user_id: requests,
    project_id: 'prj_test',
    video_id: `vid_${requests}`,
    width: 180,
    height: 320,
    fit: 'fit',
    clips,
    output_key: `exports/test-${requests}.mp4`,
    ...overrides,
  };
}

/** A clip with the editor's defaults: own length, start with its video clip, volume 1. */
export function clip(
  track: TimelineClip['track'],
  idx: number,
  storageKey: string,
  fields: Partial<TimelineClip> = {},
): TimelineClip {
  const kind: TimelineClip['kind'] = track === 'video' ? 'video' : 'audio';
  return { track, idx, storage_key: storageKey, kind, duration_sec: null, start_sec: null, volume: 1, ...fields };
}
