import { probe, resolveFfprobe } from '@mf/media';
import { runMain } from '@mf/runtime';
import { downloadToFile } from '@mf/safe-fetch';
import { createStorage, storageConfigFromEnv } from '@mf/storage';
import { migrations } from '../migrations';
import { createLlmClient } from './agent/create-llm';
import { loadEditorAgentConfig } from './config';
import { createAudioGenerator } from './media/create-audio';
import { serveEditorRpc } from './messaging/editor-rpc.server';
import { JobSettledListener } from './messaging/job-settled.listener';
import { RenderProgressListener } from './messaging/render-progress.listener';
import { failRunningExports } from './usecases/background-export.usecase';
import type { EditorContext } from './usecases/context';

runMain('editor-agent', loadEditorAgentConfig, (config, logger) => ({
  schema: 'editor',
  migrations,
  setup: async ({ db, bus }) => {
    const storage = createStorage(storageConfigFromEnv(config));
    await storage.check();
    const ffprobePath = resolveFfprobe(config);
    const policy = { allowPrivate: config.ALLOW_PRIVATE_URLS, allowHttp: false };
    const download: EditorContext['download'] = async (url, dest, accept) => {
      const r = await downloadToFile(url, dest, {
        ...policy,
        maxBytes: config.IMPORT_MAX_BYTES,
        timeoutMs: config.IMPORT_TIMEOUT_MS,
        maxRedirects: 3,
        accept,
      });
      return { contentType: r.contentType, bytes: r.bytes };
    };
    const probeFile: EditorContext['probe'] = (file) => probe(file, { ffprobePath, timeoutMs: 30_000 });
    const llm = createLlmClient(config, logger);
    if (!llm) logger.warn('LLM_BASE_URL / LLM_MODEL not set: instruct answers 503 until they are');
    const ctx: EditorContext = {
      db,
      bus,
      storage,
      logger,
      settings: {
        publicBaseUrl: config.PUBLIC_BASE_URL,
        turnPrice: config.TURN_PRICE,
        voicePrice: config.VOICE_PRICE,
        musicPrice: config.MUSIC_PRICE,
        sfxPrice: config.SFX_PRICE,
        agentMaxSteps: config.AGENT_MAX_STEPS,
        agentMaxWallMs: config.AGENT_MAX_WALL_MS,
        llmTimeoutMs: config.LLM_TIMEOUT_MS,
        mediaWaitMs: config.MEDIA_WAIT_MS,
        mediaPollMs: config.MEDIA_POLL_MS,
        turnLockWaitMs: config.TURN_LOCK_WAIT_MS,
        importMaxBytes: config.IMPORT_MAX_BYTES,
        exportTimeoutMs: config.EXPORT_REQUEST_TIMEOUT_MS,
      },
      download,
      probe: probeFile,
      llm,
      audio: createAudioGenerator(config, { download, probe: probeFile }),
      jobSettled: new JobSettledListener(),
      renderProgress: new RenderProgressListener(),
    };
    await ctx.jobSettled?.start(bus);
    await ctx.renderProgress?.start(bus);
    await serveEditorRpc(bus, ctx);
    return [{ name: 'background exports', run: () => failRunningExports(ctx).then(() => undefined) }];
  },
}));
