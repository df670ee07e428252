import type https from 'node:https';
import type { AxiosInstance, AxiosResponse } from 'axios';
import type { Logger } from '@mf/logger';
import { field, isHttpsUrl, submitCall, transportProblem, upstreamClient, type HttpProblem } from '../http';
import { DEFAULT_FAL_JWKS_URL, FalWebhookKeys, verifyFalWebhook } from './fal-webhook';
import {
  amountOf,
  ProviderSubmitError,
  type CallbackDelivery,
  type Provider,
  type ProviderJob,
  type ProviderOutput,
  type ProviderStatus,
  type StatusHint,
} from '../provider';

/** The header of a result that says how many units fal billed for the request. */
export const FAL_BILLABLE_UNITS_HEADER = 'x-fal-billable-units';

export interface FalProviderDeps {
  /** fal's queue API base, normally https://queue.fal.run. */
  queueUrl: string;
  apiKey: string;
  logger: Logger;
  /** Total time allowed for each HTTP call. */
  timeoutMs: number;
  /** Tests pass an agent that trusts a self-signed CA. */
  httpsAgent?: https.Agent;
  /** The provider's name in the providers document (default fal). */
  name?: string;
  /** Where fal publishes its webhook signing keys (default fal's JWKS). */
  webhookJwksUrl?: string;
}

export const DEFAULT_FAL_QUEUE_URL = 'https://queue.fal.run';

/** Messages stored on a failed job and shown to the end user: never upstream text. */
export const FAL_FAILURE_MESSAGE = 'the provider reported a failure';
export const FAL_NO_MEDIA_MESSAGE = 'the provider returned no media';

// Endpoint paths come from configuration and request ids from the database; both go into URL paths, so
// they are held to fal's own alphabet rather than escaped (an escaped "/" or ".." would still reach fal).
const PATH_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/;

/**
 * fal's queue API (https://docs.fal.ai/model-endpoints/queue): submit returns a request id; status
 * and result are read with the app id (first two path segments of the endpoint); cancel is a PUT.
 */
export class FalProvider implements Provider {
  readonly name: string;
  readonly type = 'fal' as const;
  /** fal calls `fal_webhook` when a request ends. */
  readonly wantsCallback = true;
  private readonly http: AxiosInstance;
  private readonly queueUrl: string;
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private readonly webhookKeys: FalWebhookKeys;

  constructor(deps: FalProviderDeps) {
    this.name = deps.name ?? 'fal';
    this.queueUrl = (deps.queueUrl || DEFAULT_FAL_QUEUE_URL).replace(/\/+$/, '');
    this.logger = deps.logger;
    this.timeoutMs = deps.timeoutMs;
    // Absolute URLs (status and result paths name the app); no redirects, every status classified here.
    this.http = upstreamClient(
      { baseUrl: this.queueUrl, timeoutMs: deps.timeoutMs, httpsAgent: deps.httpsAgent },
      { Authorization: `Key ${deps.apiKey}` },
    );
    // A client of its own: the key never goes to the keys' host.
    const jwksUrl = deps.webhookJwksUrl ?? DEFAULT_FAL_JWKS_URL;
    const jwks = upstreamClient({ baseUrl: jwksUrl, timeoutMs: deps.timeoutMs, httpsAgent: deps.httpsAgent }, {});
    this.webhookKeys = new FalWebhookKeys(async () => {
      const res = await jwks.get<unknown>(jwksUrl, { signal: AbortSignal.timeout(this.timeoutMs) });
      if (res.status < 200 || res.status >= 300) throw new Error(`fal keys: HTTP ${res.status}`);
      return res.data;
    });
  }

  /**
   * fal's webhook carries the result (`{ request_id, status: OK, payload }`): with a valid signature
   * for this request, its media complete the attempt without the status and result calls. Anything
   * else (no or a wrong signature, another request, an error, no usable media) leaves the decision
   * to the status call. fal sends no billed units with it (they come on the result's header only).
   */
  async callbackResult(
    delivery: CallbackDelivery,
    requestId: string,
    job: ProviderJob,
  ): Promise<ProviderStatus | undefined> {
    if (delivery.headers['x-fal-webhook-request-id'] !== requestId) return undefined;
    try {
      let keys = await this.webhookKeys.get();
      if (!verifyFalWebhook(keys, delivery.headers, delivery.body)) {
        keys = await this.webhookKeys.get(true);
        if (!verifyFalWebhook(keys, delivery.headers, delivery.body)) {
          this.logger.warn({ requestId, jobId: job.jobId }, 'fal callback signature did not verify: status asked');
          return undefined;
        }
      }
      const body: unknown = JSON.parse(delivery.body);
      if (field(body, 'request_id') !== requestId || field(body, 'status') !== 'OK') return undefined;
      const outputs = mediaOutputs(job, field(body, 'payload'));
      return outputs.length > 0 ? { state: 'completed', outputs } : undefined;
    } catch {
      return undefined;
    }
  }

  async submit(job: ProviderJob): Promise<{ requestId: string }> {
    const endpoint = endpointSegments(job.upstreamModel);
    if (!endpoint) throw new ProviderSubmitError('invalid fal endpoint path');
    const url = new URL(`${this.queueUrl}/${endpoint.join('/')}`);
    if (job.callbackUrl) url.searchParams.set('fal_webhook', job.callbackUrl);

    const res = await submitCall('fal', () =>
      this.http.post(url.toString(), falInput(job), { signal: AbortSignal.timeout(this.timeoutMs) }),
    );
    const requestId = field(res.data, 'request_id');
    if (typeof requestId !== 'string' || !REQUEST_ID.test(requestId)) {
      throw new ProviderSubmitError('fal submit answered without a request id', {
        httpStatus: res.status,
      } satisfies HttpProblem);
    }
    return { requestId };
  }

  async status(requestId: string, job: ProviderJob, hint?: StatusHint): Promise<ProviderStatus> {
    const base = this.requestUrl(requestId, job);
    // fal calls back when a request has ended: the result is then asked for alongside the status,
    // one round trip instead of two. The status still decides; an early result is used only once
    // the status says COMPLETED and only if it was a 2xx, else the result is asked for again.
    const early = hint?.calledBack ? this.get(base, 'result').catch(() => undefined) : undefined;
    const res = await this.get(`${base}/status`, 'status');
    // Any non-2xx on the status call is treated as passing: the poller retries, and its own deadline
    // fails jobs fal keeps refusing to describe (a key problem must not fail every job at once).
    if (res.status < 200 || res.status >= 300) throw new Error(`fal status poll failed: HTTP ${res.status}`);

    const state = field(res.data, 'status');
    if (state === 'IN_QUEUE') {
      // Queue position before the start is not progress: the Job shows it as queue_position.
      const position = field(res.data, 'queue_position');
      return typeof position === 'number' && Number.isInteger(position) && position >= 0
        ? { state: 'running', queuePosition: position }
        : { state: 'running' };
    }
    if (state === 'IN_PROGRESS') return { state: 'running' };
    if (state !== 'COMPLETED') throw new Error('fal status poll answered an unknown state');
    const error = field(res.data, 'error');
    if (typeof error === 'string' && error.length > 0) {
      this.logger.warn({ requestId, jobId: job.jobId }, 'fal reported a failed request');
      return { state: 'failed', error: FAL_FAILURE_MESSAGE };
    }

    const prefetched = await early;
    const result =
      prefetched && prefetched.status >= 200 && prefetched.status < 300 ? prefetched : await this.get(base, 'result');
    if (result.status < 200 || result.status >= 300) return this.resultRefused(result, requestId, job);
    const outputs = mediaOutputs(job, result.data);
    if (outputs.length === 0) {
      this.logger.warn({ requestId, jobId: job.jobId }, 'fal result carried no usable media');
      return { state: 'failed', error: FAL_NO_MEDIA_MESSAGE };
    }
    // fal bills units per endpoint: priced with the route's per_unit.
    const billedUnits = amountOf(result.headers[FAL_BILLABLE_UNITS_HEADER]);
    return { state: 'completed', outputs, ...(billedUnits !== undefined ? { usage: { billedUnits } } : {}) };
  }

  async cancel(requestId: string, job: ProviderJob): Promise<void> {
    try {
      const res = await this.http.put(`${this.requestUrl(requestId, job)}/cancel`, undefined, {
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (res.status < 200 || res.status >= 300) {
        this.logger.warn({ requestId, jobId: job.jobId, httpStatus: res.status }, 'fal refused a cancel');
      }
    } catch (err) {
      // Best effort: the job is cancelled on our side whatever fal says.
      this.logger.warn({ requestId, jobId: job.jobId, ...transportProblem(err) }, 'fal cancel failed');
    }
  }

  /** `${queueUrl}/${app}/requests/${requestId}`; throws (no HTTP call) for malformed input. */
  private requestUrl(requestId: string, job: ProviderJob): string {
    const endpoint = endpointSegments(job.upstreamModel);
    if (!endpoint) throw new Error('invalid fal endpoint path');
    if (!REQUEST_ID.test(requestId)) throw new Error('invalid fal request id');
    return `${this.queueUrl}/${endpoint[0]}/${endpoint[1]}/requests/${requestId}`;
  }

  /** A GET whose transport failures (network, timeout, oversized answer) throw a safe Error. */
  private async get(url: string, what: string): Promise<AxiosResponse<unknown>> {
    try {
      return await this.http.get(url, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      // The axios error holds the request config, key included: only a summary travels on.
      throw new Error(`fal ${what} request failed: ${transportProblem(err).code ?? 'network error'}`);
    }
  }

  /**
   * fal answers the result of a failed request with 4xx/5xx and a JSON `detail`: that is the job's
   * outcome. Key problems, rate limits, and 5xx without `detail` (gateways) are not the job's fault.
   */
  private resultRefused(res: AxiosResponse<unknown>, requestId: string, job: ProviderJob): ProviderStatus {
    const notTheJob =
      [401, 403, 408, 429].includes(res.status) || (res.status >= 500 && field(res.data, 'detail') === undefined);
    if (notTheJob) throw new Error(`fal result request failed: HTTP ${res.status}`);
    this.logger.warn({ requestId, jobId: job.jobId, httpStatus: res.status }, 'fal result reports a failed request');
    return { state: 'failed', error: FAL_FAILURE_MESSAGE };
  }
}

/** fal's input for a job; fields fal does not know (fast, the model id) stay out. */
export function falInput(job: ProviderJob): Record<string, unknown> {
  if (job.type === 'video') {
    const p = job.params;
    return {
      prompt: p.prompt,
      duration: String(p.duration_seconds),
      aspect_ratio: p.aspect_ratio,
      resolution: p.resolution,
      generate_audio: p.generate_audio,
      seed: p.seed,
      ...(p.image_url ? { image_url: p.image_url } : {}),
    };
  }
  const p = job.params;
  return {
    prompt: p.prompt,
    num_images: p.num_images,
    aspect_ratio: p.aspect_ratio,
    seed: p.seed,
    ...(p.image_urls.length > 0 ? { image_urls: p.image_urls } : {}),
  };
}

/** The endpoint's path segments (at least owner and app), or null when any segment is unsafe. */
function endpointSegments(upstreamModel: string): string[] | null {
  const segments = upstreamModel.split('/');
  if (segments.length < 2 || !segments.every((s) => PATH_SEGMENT.test(s) && s !== '.' && s !== '..')) return null;
  return segments;
}

function mediaOutputs(job: ProviderJob, data: unknown): ProviderOutput[] {
  if (job.type === 'video') {
    const out = mediaFile(field(data, 'video'));
    return out ? [out] : [];
  }
  const images = field(data, 'images');
  if (!Array.isArray(images)) return [];
  return images.map(mediaFile).filter((o): o is ProviderOutput => o !== null);
}

/** `{url, content_type?}` with an https URL (outputs are fetched later; nothing else is accepted). */
function mediaFile(value: unknown): ProviderOutput | null {
  const url = field(value, 'url');
  if (typeof url !== 'string' || !isHttpsUrl(url)) return null;
  const contentType = field(value, 'content_type');
  return typeof contentType === 'string' && contentType ? { kind: 'url', url, contentType } : { kind: 'url', url };
}
