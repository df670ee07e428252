import path from 'node:path';
import type https from 'node:https';
import type { Logger } from '@mf/logger';
import { resolveFfmpeg } from '@mf/media';
import type { Storage } from '@mf/storage';
import type { JobsConfig } from '../config';
import { MODEL_MODES, type RoutingConfig } from '../routing/providers-document';
import { ComfyUiProvider } from './comfyui/comfyui-provider';
import { FalProvider } from './fal/fal-provider';
import { LocalProvider } from './local/local-provider';
import { OpenAiImagesProvider } from './openai-images/openai-images-provider';
import { OpenRouterProvider } from './openrouter/openrouter-provider';
import type { Provider } from './provider';
import { ReplicateProvider } from './replicate/replicate-provider';

export interface ProviderDeps {
  logger: Logger;
  storage: Storage;
  fetchReference: (url: string, dest: string) => Promise<void>;
  /** Tests: an agent trusting a fake upstream's CA. */
  httpsAgent?: https.Agent;
}

/** Default time an images call may take when the document sets no attempt_timeout_ms. */
const IMAGES_REQUEST_TIMEOUT_MS = 5 * 60_000;

/**
 * One adapter per provider of the routing document; throws naming the provider when one cannot
 * be made (a ComfyUI route without its workflow files).
 */
export function createProviders(routing: RoutingConfig, config: JobsConfig, deps: ProviderDeps): Map<string, Provider> {
  const out = new Map<string, Provider>();
  const http = (name: string, baseUrl: string | undefined, apiKey: string | undefined) => ({
    name,
    baseUrl: baseUrl ?? '',
    apiKey,
    timeoutMs: config.PROVIDER_HTTP_TIMEOUT_MS,
    resultMaxBytes: config.RESULT_MAX_BYTES,
    httpsAgent: deps.httpsAgent,
  });
  for (const spec of routing.providers.values()) {
    const logger = deps.logger.child({ provider: spec.name });
    const common = http(spec.name, spec.baseUrl, spec.apiKey);
    switch (spec.type) {
      case 'local':
        out.set(
          spec.name,
          new LocalProvider({
            name: spec.name,
            workDir: path.resolve(config.LOCAL_WORK_DIR),
            ffmpegPath: resolveFfmpeg({ FFMPEG_PATH: config.FFMPEG_PATH }),
            concurrency: config.LOCAL_RENDER_CONCURRENCY,
            renderTimeoutMs: config.LOCAL_RENDER_TIMEOUT_MS,
            fetchReference: deps.fetchReference,
            logger,
          }),
        );
        break;
      case 'fal':
        out.set(
          spec.name,
          new FalProvider({
            name: spec.name,
            queueUrl: spec.baseUrl ?? config.FAL_QUEUE_URL,
            apiKey: spec.apiKey!,
            logger,
            timeoutMs: config.PROVIDER_HTTP_TIMEOUT_MS,
            httpsAgent: deps.httpsAgent,
            webhookJwksUrl: config.FAL_WEBHOOK_JWKS_URL,
          }),
        );
        break;
      case 'replicate':
        out.set(
          spec.name,
          new ReplicateProvider({ ...common, apiKey: spec.apiKey!, webhookSecret: spec.webhookSecret, logger }),
        );
        break;
      case 'openrouter':
        out.set(
          spec.name,
          new OpenRouterProvider({ ...common, apiKey: spec.apiKey!, webhookSecret: spec.webhookSecret, logger }),
        );
        break;
      case 'openai-images':
        out.set(
          spec.name,
          new OpenAiImagesProvider({
            ...common,
            logger,
            storage: deps.storage,
            fetchReference: deps.fetchReference,
            requestTimeoutMs: spec.attemptTimeoutMs ?? IMAGES_REQUEST_TIMEOUT_MS,
            sizes: spec.sizes,
          }),
        );
        break;
      case 'comfyui':
        for (const [model, routes] of Object.entries(routing.routes)) {
          for (const r of routes.filter((x) => x.provider === spec.name)) {
            const models = new Set(Object.values(r.models ?? {}));
            for (const m of models) {
              try {
                ComfyUiProvider.checkWorkflows(spec.workflowsDir!, m, MODEL_MODES[model as keyof typeof MODEL_MODES]);
              } catch (err) {
                throw new Error(`providers.${spec.name}: ${(err as Error).message}`);
              }
            }
          }
        }
        out.set(
          spec.name,
          new ComfyUiProvider({
            ...common,
            workflowsDir: spec.workflowsDir!,
            logger,
            fetchReference: deps.fetchReference,
          }),
        );
        break;
    }
  }
  return out;
}
