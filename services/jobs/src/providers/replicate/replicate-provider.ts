import type { AxiosInstance } from 'axios';
import type { Logger } from '@mf/logger';
import { field, isHttpsUrl, statusCall, submitCall, upstreamClient, UPSTREAM_ID, type HttpAdapterDeps } from '../http';
import {
  amountOf,
  ProviderSubmitError,
  type CallbackDelivery,
  type CallbackVerdict,
  type Provider,
  type ProviderJob,
  type ProviderOutput,
  type ProviderStatus,
} from '../provider';
import { fitToSchema, inputSchemaOf, progressFromLogs, replicateInput, type InputSchema } from './replicate-input';
import { verifyStandardWebhook } from './webhook-signature';

export interface ReplicateProviderDeps extends HttpAdapterDeps {
  apiKey: string;
  /** The account's webhook signing secret (whsec_...): callbacks without a valid signature are ignored. */
  webhookSecret?: string;
  logger: Logger;
}

/** Messages stored on a failed attempt: never upstream text. */
export const REPLICATE_ERRORS = {
  failed: 'the provider reported a failure',
  canceled: 'the prediction was cancelled upstream',
  noMedia: 'the provider returned no media',
  gone: 'the provider no longer knows the prediction',
} as const;

/** `owner/name` (an official or latest-version model) or `owner/name:version`, or a bare version id. */
const MODEL_REF = /^([A-Za-z0-9_.-]{1,100})\/([A-Za-z0-9_.-]{1,100})(?::([a-f0-9]{8,128}))?$/;
const VERSION_ONLY = /^[a-f0-9]{32,128}$/;
/** How long a model's input schema is trusted before it is read again. */
const SCHEMA_TTL_MS = 10 * 60_000;

/**
 * Replicate's predictions API (https://replicate.com/docs/reference/http): create a prediction for a
 * model (`POST /models/{owner}/{name}/predictions`) or a version (`POST /predictions` with
 * `version`), poll `GET /predictions/{id}`, cancel `POST /predictions/{id}/cancel`; its webhook
 * (completed events only) nudges us to poll, signed with Standard Webhooks headers.
 */
export class ReplicateProvider implements Provider {
  readonly type = 'replicate' as const;
  readonly wantsCallback = true;
  readonly name: string;
  private readonly http: AxiosInstance;
  private readonly schemas = new Map<string, { at: number; schema: InputSchema | null }>();

  constructor(private readonly deps: ReplicateProviderDeps) {
    this.name = deps.name;
    this.http = upstreamClient(deps, { Authorization: `Bearer ${deps.apiKey}`, 'Content-Type': 'application/json' });
  }

  async submit(job: ProviderJob): Promise<{ requestId: string }> {
    const ref = parseModelRef(job.upstreamModel);
    if (!ref) throw new ProviderSubmitError('invalid replicate model reference');
    const input = fitToSchema(
      replicateInput(job),
      ref.version ? null : await this.schemaOf(ref.owner!, ref.name!),
      job.upstreamModel,
    );
    const webhook = job.callbackUrl ? { webhook: job.callbackUrl, webhook_events_filter: ['completed'] } : {};
    const res = ref.version
      ? await submitCall('replicate', () => this.http.post('/predictions', { version: ref.version, input, ...webhook }))
      : await submitCall('replicate', () =>
          this.http.post(`/models/${ref.owner}/${ref.name}/predictions`, { input, ...webhook }),
        );
    const id = field(res.data, 'id');
    if (typeof id !== 'string' || !UPSTREAM_ID.test(id))
      throw new ProviderSubmitError('replicate answered without a prediction id');
    return { requestId: id };
  }

  async status(requestId: string, job: ProviderJob): Promise<ProviderStatus> {
    if (!UPSTREAM_ID.test(requestId)) return { state: 'failed', error: REPLICATE_ERRORS.gone };
    const ok = await statusCall('replicate', () => this.http.get(`/predictions/${requestId}`), [404]);
    if (ok.status === 404) return { state: 'failed', error: REPLICATE_ERRORS.gone };
    return this.predictionStatus(ok.data, requestId, job);
  }

  /** A prediction's status as our status (a status answer, or a signed webhook's body). */
  private predictionStatus(data: unknown, requestId: string, job: ProviderJob): ProviderStatus {
    const state = field(data, 'status');
    if (state === 'starting' || state === 'processing')
      return { state: 'running', progress: progressFromLogs(field(data, 'logs')) };
    if (state === 'failed') {
      this.deps.logger.warn({ requestId, jobId: job.jobId }, 'replicate reported a failed prediction');
      return { state: 'failed', error: REPLICATE_ERRORS.failed };
    }
    if (state === 'canceled') return { state: 'failed', error: REPLICATE_ERRORS.canceled };
    if (state !== 'succeeded') throw new Error('replicate status answered an unknown state');
    const outputs = mediaOutputs(job, field(data, 'output'));
    if (!outputs.length) return { state: 'failed', error: REPLICATE_ERRORS.noMedia };
    // Replicate bills hardware time: priced with the route's per_compute_second.
    const computeSeconds = amountOf(field(field(data, 'metrics'), 'predict_time'));
    return { state: 'completed', outputs, ...(computeSeconds !== undefined ? { usage: { computeSeconds } } : {}) };
  }

  /**
   * Replicate's webhook body is the prediction itself: signed (a secret configured and the
   * signature valid) and about this request and ended, it is the outcome, no status call needed.
   */
  callbackResult(delivery: CallbackDelivery, requestId: string, job: ProviderJob): Promise<ProviderStatus | undefined> {
    return Promise.resolve(this.carried(delivery, requestId, job));
  }

  private carried(delivery: CallbackDelivery, requestId: string, job: ProviderJob): ProviderStatus | undefined {
    if (!this.deps.webhookSecret || !verifyStandardWebhook(this.deps.webhookSecret, delivery.headers, delivery.body))
      return undefined;
    try {
      const body: unknown = JSON.parse(delivery.body);
      if (field(body, 'id') !== requestId) return undefined;
      const status = this.predictionStatus(body, requestId, job);
      return status.state === 'running' ? undefined : status;
    } catch {
      return undefined;
    }
  }

  async cancel(requestId: string, job: ProviderJob): Promise<void> {
    if (!UPSTREAM_ID.test(requestId)) return;
    try {
      const res = await this.http.post(`/predictions/${requestId}/cancel`);
      if (res.status < 200 || res.status >= 300)
        this.deps.logger.warn({ requestId, jobId: job.jobId, httpStatus: res.status }, 'replicate refused a cancel');
    } catch {
      // Best effort: the attempt is over on our side whatever Replicate says.
      this.deps.logger.warn({ requestId, jobId: job.jobId }, 'replicate cancel failed');
    }
  }

  /** Without a configured secret nothing can be verified, and the body is not read. */
  verifyCallback(delivery: CallbackDelivery | undefined): CallbackVerdict {
    if (!this.deps.webhookSecret) return { authentic: true };
    if (!delivery || !verifyStandardWebhook(this.deps.webhookSecret, delivery.headers, delivery.body))
      return { authentic: false };
    try {
      const body: unknown = JSON.parse(delivery.body);
      const id = field(body, 'id');
      return {
        authentic: true,
        requestId: typeof id === 'string' ? id : undefined,
        succeeded: field(body, 'status') === 'succeeded',
      };
    } catch {
      return { authentic: true };
    }
  }

  /** The model's Input schema (cached); null when Replicate does not give it (the input is sent unchecked). */
  private async schemaOf(owner: string, name: string): Promise<InputSchema | null> {
    const key = `${owner}/${name}`;
    const cached = this.schemas.get(key);
    if (cached && Date.now() - cached.at < SCHEMA_TTL_MS) return cached.schema;
    let schema: InputSchema | null = null;
    try {
      const res = await this.http.get(`/models/${owner}/${name}`);
      if (res.status === 404) throw new ProviderSubmitError('replicate submit refused: HTTP 404');
      if (res.status >= 200 && res.status < 300)
        schema = inputSchemaOf(field(field(res.data, 'latest_version'), 'openapi_schema'));
    } catch (err) {
      if (err instanceof ProviderSubmitError) throw err;
      // The submit itself will say whether Replicate is there.
    }
    this.schemas.set(key, { at: Date.now(), schema });
    return schema;
  }
}

function parseModelRef(ref: string): { owner?: string; name?: string; version?: string } | null {
  if (VERSION_ONLY.test(ref)) return { version: ref };
  const m = MODEL_REF.exec(ref);
  if (!m || [m[1], m[2]].some((s) => s === '.' || s === '..')) return null;
  return { owner: m[1], name: m[2], version: m[3] };
}

/** `output` is a URL or a list of URLs (other shapes carry no media we can use). */
function mediaOutputs(job: ProviderJob, output: unknown): ProviderOutput[] {
  const urls = (Array.isArray(output) ? output : [output]).filter(isHttpsUrl);
  const wanted = job.type === 'video' ? urls.slice(0, 1) : urls.slice(0, job.params.num_images);
  return wanted.map((url) => ({ kind: 'url', url }));
}
