import type https from 'node:https';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import type { Logger } from '@mf/logger';
import { ProviderSubmitError, type Provider, type ProviderJob, type ProviderOutput, type ProviderStatus } from '../provider';

export interface FalProviderDeps {
  /** fal's queue API base, normally https://queue.fal.run. */
  queueUrl: string;
  apiKey: string;
  logger: Logger;
  /** Total time allowed for each HTTP call. */
  timeoutMs: number;
  /** Tests pass an agent that trusts a self-signed CA. */
  httpsAgent?: https.Agent;
}

export const DEFAULT_FAL_QUEUE_URL = 'https://queue.fal.run';

/** Messages stored on a failed job and shown to the end user: never upstream text. */
export const FAL_FAILURE_MESSAGE = 'the provider reported a failure';
export const FAL_NO_MEDIA_MESSAGE = 'the provider returned no media';

// Endpoint paths come from configuration and request ids from the database; both go into URL paths, so
// they are held to fal's own alphabet rather than escaped (an escaped "/" or ".." would still reach fal).
const PATH_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/;
// fal's JSON answers are small (URLs, ids); a cap keeps a misbehaving upstream from filling memory.
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

/** Summary of a failed HTTP exchange that is safe to log or attach as a cause (no headers, no body). */
interface HttpProblem {
  httpStatus?: number;
  code?: string;
}

/**
 * fal's queue API (https://docs.fal.ai/model-endpoints/queue): submit returns a request id; status
 * and result are read with the app id (first two path segments of the endpoint); cancel is a PUT.
 */
export class FalProvider implements Provider {
  readonly name = 'fal' as const;
  private readonly http: AxiosInstance;
  private readonly queueUrl: string;
  private readonly logger: Logger;
  private readonly timeoutMs: number;

  constructor(deps: FalProviderDeps) {
    this.queueUrl = (deps.queueUrl || DEFAULT_FAL_QUEUE_URL).replace(/\/+$/, '');
    this.logger = deps.logger;
    this.timeoutMs = deps.timeoutMs;
    this.http = axios.create({
      headers: { Authorization: `Key ${deps.apiKey}`, Accept: 'application/json' },
      httpsAgent: deps.httpsAgent,
      timeout: deps.timeoutMs,
      // The queue API never redirects; following one could carry the key somewhere else.
      maxRedirects: 0,
      maxContentLength: MAX_ANSWER_BYTES,
      responseType: 'json',
      // Every status is classified here, so axios must not throw on non-2xx.
      validateStatus: () => true,
    });
  }

  async submit(job: ProviderJob): Promise<{ requestId: string }> {
    const endpoint = endpointSegments(job.upstreamModel);
    if (!endpoint) throw new ProviderSubmitError('invalid fal endpoint path');
    const url = new URL(`${this.queueUrl}/${endpoint.join('/')}`);
    if (job.callbackUrl) url.searchParams.set('fal_webhook', job.callbackUrl);

    let res: AxiosResponse<unknown>;
    try {
      res = await this.http.post(url.toString(), falInput(job), { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const problem = transportProblem(err);
      throw new ProviderSubmitError(`fal submit failed: ${problem.code ?? 'network error'}`, problem);
    }
    if (res.status < 200 || res.status >= 300) {
      // The body may echo the prompt or carry upstream internals: only the status leaves this method.
      throw new ProviderSubmitError(`fal submit refused: HTTP ${res.status}`, { httpStatus: res.status } satisfies HttpProblem);
    }
    const requestId = field(res.data, 'request_id');
    if (typeof requestId !== 'string' || !REQUEST_ID.test(requestId)) {
      throw new ProviderSubmitError('fal submit answered without a request id', { httpStatus: res.status } satisfies HttpProblem);
    }
    return { requestId };
  }

  async status(requestId: string, job: ProviderJob): Promise<ProviderStatus> {
    const base = this.requestUrl(requestId, job);
    const res = await this.get(`${base}/status`, 'status');
    // Any non-2xx on the status call is treated as passing: the poller retries, and its own deadline
    // fails jobs fal keeps refusing to describe (a key problem must not fail every job at once).
    if (res.status < 200 || res.status >= 300) throw new Error(`fal status poll failed: HTTP ${res.status}`);

    const state = field(res.data, 'status');
    if (state === 'IN_QUEUE' || state === 'IN_PROGRESS') return { state: 'running' };
    if (state !== 'COMPLETED') throw new Error('fal status poll answered an unknown state');
    const error = field(res.data, 'error');
    if (typeof error === 'string' && error.length > 0) {
      this.logger.warn({ requestId, jobId: job.jobId }, 'fal reported a failed request');
      return { state: 'failed', error: FAL_FAILURE_MESSAGE };
    }

    const result = await this.get(base, 'result');
    if (result.status < 200 || result.status >= 300) return this.resultRefused(result, requestId, job);
    const outputs = mediaOutputs(job, result.data);
    if (outputs.length === 0) {
      this.logger.warn({ requestId, jobId: job.jobId }, 'fal result carried no usable media');
      return { state: 'failed', error: FAL_NO_MEDIA_MESSAGE };
    }
    return { state: 'completed', outputs };
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
    const notTheJob = [401, 403, 408, 429].includes(res.status) || (res.status >= 500 && field(res.data, 'detail') === undefined);
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

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function transportProblem(err: unknown): HttpProblem {
  if (axios.isAxiosError(err)) {
    // An AbortSignal.timeout abort surfaces as ERR_CANCELED; name it for what it is.
    const code = err.code === 'ERR_CANCELED' ? 'ETIMEDOUT' : (err.code ?? 'network error');
    return err.response ? { httpStatus: err.response.status, code } : { code };
  }
  return { code: 'network error' };
}
