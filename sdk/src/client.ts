import { OperationMethods } from './generated/operation-methods';
import { route } from './generated/operations';
import { HttpTransport, type Call, type FetchLike, type RequestOptions } from './transport';
import { eventsApi, jobsStreams, pollForJob, streamTransport, waitByStream } from './streams';
import type { EventsApi, JobsStreams, WaitForJobOptions } from './streams';
import type {
  EstimateParams,
  EstimateResponse,
  ExportParams,
  ExportResponse,
  GetProjectOptions,
  Job,
  ListJobsParams,
  ListJobsResponse,
  ProjectState,
} from './types';
import { LedgerApi, UsageApi } from './usage';
import { WebhookDeliveries } from './webhook-deliveries';

export const SDK_VERSION = '0.1.0';

export interface MediaforgeClientOptions {
  /** e.g. http://localhost:8080 (without /api/v1). */
  baseUrl: string;
  apiKey: string;
  /** Retries after the first attempt (429, 5xx, network errors; see docs/sdk.md). Default 3. */
  maxRetries?: number;
  /** A fetch implementation (defaults to the global fetch of Node 20). */
  fetch?: FetchLike;
  userAgent?: string;
  /** Per-attempt timeout in ms (default none: export and instruct may take minutes). */
  timeoutMs?: number;
  /** Backoff base and cap for retries, in ms (defaults 500 and 20000). */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/** Per-call options (transport.ts) and waitForJob's options (streams.ts). */
export type { RequestOptions } from './transport';
export type { WaitForJobOptions } from './streams';

/**
 * A typed client of the mediaforge API (shared/spec/API.md). Every method resolves the parsed
 * response body or rejects with a typed ApiError subclass.
 */
export class MediaforgeClient extends OperationMethods {
  readonly baseUrl: string;
  private readonly http: HttpTransport;
  /** The key's webhook deliveries: list, detail, resend, recover, sample events (webhook-deliveries.ts). */
  readonly webhook = new WebhookDeliveries((call) => this.request(call));
  /** The key owner's usage by day, model or key, as JSON or CSV (usage.ts). */
  readonly usage = new UsageApi((call) => this.request(call));
  /** The key owner's credit ledger, newest first, as pages or CSV (usage.ts). */
  readonly ledger = new LedgerApi((call) => this.request(call));
  /** A job's events as they happen: `for await (const e of client.jobs.stream(id))` (streams.ts). */
  readonly jobs: JobsStreams;
  /** The key owner's event log: `events.stream()`, `events.list()` (streams.ts). */
  readonly events: EventsApi;

  constructor(options: MediaforgeClientOptions) {
    super();
    if (!options || !options.baseUrl) throw new TypeError('MediaforgeClient: baseUrl is required');
    if (!options.apiKey) throw new TypeError('MediaforgeClient: apiKey is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const settings = {
      baseUrl: this.baseUrl,
      apiKey: options.apiKey,
      maxRetries: Math.max(0, options.maxRetries ?? 3),
      fetchImpl: options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init)),
      userAgent: options.userAgent ?? `mediaforge-sdk-node/${SDK_VERSION}`,
      timeoutMs: options.timeoutMs,
      retryBaseMs: options.retryBaseMs ?? 500,
      retryMaxMs: options.retryMaxMs ?? 20_000,
    };
    this.http = new HttpTransport(settings);
    const transport = streamTransport(settings.baseUrl, settings.apiKey, settings.userAgent, settings.fetchImpl);
    this.jobs = jobsStreams(transport);
    this.events = eventsApi(
      transport,
      (query, signal) => this.request({ ...route('listEvents'), query, opts: { signal } }),
      (type, signal) => this.request({ ...route('triggerEvent'), body: { type }, opts: { signal } }),
    );
  }

  // The operations' own methods (listModels, getAccount, generateVideo, getJob, cancelJob, the
  // editor's and the webhook endpoint's) are generated: OperationMethods. Here: those whose
  // arguments or answers are shaped for the SDK.

  /** What a submit would cost and whether the balance covers it; charges nothing (estimate.ts builds the body). */
  estimate(params: EstimateParams, opts?: RequestOptions): Promise<EstimateResponse> {
    return this.request({ ...route('estimateCost'), body: params, opts });
  }

  /** One page of the key owner's jobs, newest first (scope jobs:read). */
  listJobs(params: ListJobsParams = {}, opts?: RequestOptions): Promise<ListJobsResponse> {
    const query: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) query[k] = String(v);
    return this.request({ ...route('listJobs'), query, opts });
  }

  /**
   * Every job matching `params`, newest first, fetching page after page as the loop asks for
   * more (`for await (const job of client.listAllJobs({ status: 'failed' }))`).
   */
  async *listAllJobs(
    params: Omit<ListJobsParams, 'starting_after'> = {},
    opts?: RequestOptions,
  ): AsyncGenerator<Job, void, undefined> {
    let startingAfter: string | undefined;
    for (;;) {
      const page = await this.listJobs(
        { ...params, ...(startingAfter ? { starting_after: startingAfter } : {}) },
        opts,
      );
      yield* page.jobs;
      if (!page.has_more || page.jobs.length === 0) return;
      startingAfter = page.jobs[page.jobs.length - 1].job_id;
    }
  }

  /**
   * Waits for a job by its event stream (polling when the stream cannot be had, or with
   * `stream: false`) until it ends: resolves the completed Job; rejects with JobFailedError when it
   * fails or is cancelled, WaitTimeoutError after timeoutMs. Intervals grow x1.5 from intervalMs up
   * to maxIntervalMs (each poll itself retries 429/5xx as any GET does).
   */
  async waitForJob(id: string, options: WaitForJobOptions = {}): Promise<Job> {
    const getJob = (signal?: AbortSignal) => this.getJob(id, { signal });
    if (options.stream === false) return pollForJob(getJob, id, options);
    return waitByStream(this.jobs, id, options, (timeoutMs) => pollForJob(getJob, id, { ...options, timeoutMs }));
  }

  /** A project's state; `videoId` narrows the timeline to one video. */
  getProject(id: string, options: GetProjectOptions & RequestOptions = {}): Promise<ProjectState> {
    const { videoId, ...opts } = options;
    return this.request({ ...route('getProjectState', { id }), query: { video_id: videoId }, opts });
  }

  /** Rejects with ExportError (code, exportMessage) for the export failures of docs/export.md. */
  exportVideo(id: string, body: ExportParams = {}, opts?: RequestOptions): Promise<ExportResponse> {
    return this.request({ ...route('exportVideo', { id }), body, exportRoute: true, opts });
  }

  protected request<T>(call: Call): Promise<T> {
    return this.http.request<T>(call);
  }
}
