import path from 'node:path';
import type { Logger } from '@mf/logger';
import { resolveFfmpeg } from '@mf/media';
import type { JobsConfig } from '../config';
import { FalProvider } from './fal/fal-provider';
import { LocalProvider } from './local/local-provider';
import type { Provider } from './provider';

/** The provider chosen by configuration. */
export function createProvider(config: JobsConfig, logger: Logger, fetchReference: (url: string, dest: string) => Promise<void>): Provider {
  if (config.PROVIDER === 'fal') {
    return new FalProvider({ queueUrl: config.FAL_QUEUE_URL, apiKey: config.FAL_KEY!, logger, timeoutMs: config.PROVIDER_HTTP_TIMEOUT_MS });
  }
  return new LocalProvider({
    workDir: path.resolve(config.LOCAL_WORK_DIR),
    ffmpegPath: resolveFfmpeg({ FFMPEG_PATH: config.FFMPEG_PATH }),
    concurrency: config.LOCAL_RENDER_CONCURRENCY,
    renderTimeoutMs: config.LOCAL_RENDER_TIMEOUT_MS,
    fetchReference,
    logger,
  });
}
