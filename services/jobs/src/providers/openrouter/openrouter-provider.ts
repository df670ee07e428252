import type { AxiosInstance } from 'axios';
import type { VideoParams } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { downloadTo, field, submitCall, statusCall, upstreamClient, UPSTREAM_ID, type HttpAdapterDeps } from '../http';
import {
  amountOf,
  ProviderSubmitError,
  UnsupportedParameterError,
  type CallbackDelivery,
  type CallbackVerdict,
  type Provider,
  type ProviderJob,
  type ProviderStatus,
} from '../provider';
import { OPENROUTER_SIGNATURE_HEADER, verifyOpenRouterWebhook } from './webhook-signature';

export interface OpenRouterProviderDeps extends HttpAdapterDeps {
  apiKey: string;
  /** The workspace's webhook signing secret: callbacks without a valid signature are ignored. */
  webhookSecret?: string;
  logger: Logger;
}

export const OPENROUTER_ERRORS = {
  failed: 'the provider reported a failure',
  cancelled: 'the generation was cancelled upstream',
  expired: 'the generation expired upstream',
} as const;

/** What /videos/models says a model offers (snake_case, as the API sends it). */
export interface VideoModelCapabilities {
  supported_durations?: number[] | null;
  supported_resolutions?: string[] | null;
  supported_aspect_ratios?: string[] | null;
  supported_frame_images?: string[] | null;
  generate_audio?: boolean | null;
  seed?: unknown;
}

const CAPABILITIES_TTL_MS = 10 * 60_000;

/**
 * The body of `POST /videos` for a job; a value the model's published capabilities do not include
 * fails the attempt (UnsupportedParameterError). Without capabilities the body goes unchecked.
 */
export function openRouterBody(job: ProviderJob, caps: VideoModelCapabilities | null): Record<string, unknown> {
  if (job.type !== 'video') throw new UnsupportedParameterError('openrouter makes videos only');
  const p: VideoParams = job.params;
  const model = job.upstreamModel;
  const offer = <T>(what: string, value: T, offered: T[] | null | undefined): void => {
    if (offered && offered.length && !offered.includes(value))
      throw new UnsupportedParameterError(
        `${model} does not offer ${what} ${String(value)} (it offers ${offered.join(', ')})`,
      );
  };
  if (caps) {
    offer('duration', p.duration_seconds, caps.supported_durations);
    offer('resolution', p.resolution, caps.supported_resolutions);
    offer('aspect ratio', p.aspect_ratio, caps.supported_aspect_ratios);
    if (p.generate_audio && caps.generate_audio === false)
      throw new UnsupportedParameterError(`${model} does not generate audio`);
    if (p.image_url && !(caps.supported_frame_images ?? []).includes('first_frame'))
      throw new UnsupportedParameterError(`${model} does not start from an image`);
  }
  // Our seed is always set (random when the client gave none): sent only where the model takes one.
  const seed = !caps || (caps.seed !== null && caps.seed !== false && caps.seed !== undefined) ? { seed: p.seed } : {};
  return {
    model,
    prompt: p.prompt,
    duration: p.duration_seconds,
    resolution: p.resolution,
    aspect_ratio: p.aspect_ratio,
    generate_audio: p.generate_audio,
    ...seed,
    ...(p.image_url
      ? { frame_images: [{ type: 'image_url', image_url: { url: p.image_url }, frame_type: 'first_frame' }] }
      : {}),
    ...(job.callbackUrl ? { callback_url: job.callbackUrl } : {}),
  };
}

/**
 * OpenRouter's video API (https://openrouter.ai/docs/api_reference/videos): `POST /videos` answers a
 * job id, `GET /videos/{id}` its status (pending, in_progress, completed, failed, cancelled,
 * expired), and `GET /videos/{id}/content?index=0` the video with the key. Its callback_url nudges
 * us to poll; the callback is signed (`X-OpenRouter-Signature`) when the workspace has a signing
 * secret. It has no cancel endpoint: a cancelled job's generation runs on.
 */
export class OpenRouterProvider implements Provider {
  readonly type = 'openrouter' as const;
  readonly wantsCallback = true;
  readonly name: string;
  private readonly http: AxiosInstance;
  private capabilities: { at: number; byModel: Map<string, VideoModelCapabilities> } | null = null;

  constructor(private readonly deps: OpenRouterProviderDeps) {
    this.name = deps.name;
    this.http = upstreamClient(deps, { Authorization: `Bearer ${deps.apiKey}`, 'Content-Type': 'application/json' });
  }

  async submit(job: ProviderJob): Promise<{ requestId: string }> {
    const body = openRouterBody(job, await this.capabilitiesOf(job.upstreamModel));
    const res = await submitCall('openrouter', () => this.http.post('/videos', body));
    const id = field(res.data, 'id');
    if (typeof id !== 'string' || !UPSTREAM_ID.test(id))
      throw new ProviderSubmitError('openrouter answered without a job id');
    return { requestId: id };
  }

  async status(requestId: string, job: ProviderJob): Promise<ProviderStatus> {
    if (!UPSTREAM_ID.test(requestId)) return { state: 'failed', error: OPENROUTER_ERRORS.failed };
    const res = await statusCall('openrouter', () => this.http.get(`/videos/${requestId}`));
    const state = field(res.data, 'status');
    if (state === 'pending' || state === 'in_progress') return { state: 'running' };
    if (state === 'failed') {
      this.deps.logger.warn({ requestId, jobId: job.jobId }, 'openrouter reported a failed generation');
      return { state: 'failed', error: OPENROUTER_ERRORS.failed };
    }
    if (state === 'cancelled') return { state: 'failed', error: OPENROUTER_ERRORS.cancelled };
    if (state === 'expired') return { state: 'failed', error: OPENROUTER_ERRORS.expired };
    if (state !== 'completed') throw new Error('openrouter status answered an unknown state');
    const costUsd = amountOf(field(field(res.data, 'usage'), 'cost'));
    return {
      state: 'completed',
      ...(costUsd !== undefined ? { usage: { costUsd } } : {}),
      outputs: [
        {
          kind: 'download',
          contentType: 'video/mp4',
          // The content proxy wants the key, so the adapter downloads it itself.
          download: (dest) =>
            downloadTo(this.http, `/videos/${requestId}/content`, dest, {
              maxBytes: this.deps.resultMaxBytes,
              params: { index: '0' },
            }),
        },
      ],
    };
  }

  cancel(requestId: string, job: ProviderJob): Promise<void> {
    this.deps.logger.info(
      { requestId, jobId: job.jobId },
      'openrouter has no cancel endpoint: the generation runs on upstream and its result is discarded',
    );
    return Promise.resolve();
  }

  /** Without a configured secret nothing can be verified, and the body is not read. */
  verifyCallback(delivery: CallbackDelivery | undefined): CallbackVerdict {
    if (!this.deps.webhookSecret) return { authentic: true };
    if (
      !delivery ||
      !verifyOpenRouterWebhook(this.deps.webhookSecret, delivery.headers[OPENROUTER_SIGNATURE_HEADER], delivery.body)
    )
      return { authentic: false };
    try {
      // { type: video.generation.<status>, created_at, data: { id, status, ... } }
      const data = field(JSON.parse(delivery.body), 'data');
      const id = field(data, 'id');
      return {
        authentic: true,
        requestId: typeof id === 'string' ? id : undefined,
        succeeded: field(data, 'status') === 'completed',
      };
    } catch {
      return { authentic: true };
    }
  }

  /** The model's capabilities from `GET /videos/models` (cached); null when the list cannot be read. */
  private async capabilitiesOf(model: string): Promise<VideoModelCapabilities | null> {
    if (!this.capabilities || Date.now() - this.capabilities.at > CAPABILITIES_TTL_MS) {
      try {
        const res = await this.http.get('/videos/models');
        const data = field(res.data, 'data');
        if (res.status >= 200 && res.status < 300 && Array.isArray(data)) {
          const byModel = new Map<string, VideoModelCapabilities>();
          for (const m of data)
            if (typeof field(m, 'id') === 'string') byModel.set(field(m, 'id') as string, m as VideoModelCapabilities);
          this.capabilities = { at: Date.now(), byModel };
        }
      } catch {
        // The submit itself will say whether OpenRouter is there.
      }
    }
    const caps = this.capabilities?.byModel.get(model);
    if (this.capabilities && !caps) throw new UnsupportedParameterError(`openrouter lists no video model ${model}`);
    return caps ?? null;
  }
}
