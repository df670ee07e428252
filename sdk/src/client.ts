import { randomUUID } from 'node:crypto';
import { ConnectionError, errorFromResponse, parseRetryAfter } from './errors';
import { eventsApi, jobsStreams, pollForJob, streamTransport, waitByStream } from './streams';
import type { EventsApi, JobsStreams, WaitForJobOptions } from './streams';
import type {
  Account,
  AddClipParams,
  AssetResponse,
  CancelJobResponse,
  ClipResponse,
  CreateProjectParams,
  CreateVideoParams,
  DeleteAssetResponse,
  ErrorBody,
  EstimateParams,
  EstimateResponse,
  ExportParams,
  ExportResponse,
  GenerateImageParams,
  GenerateVideoParams,
  GetProjectOptions,
  ImportAssetParams,
  InstructParams,
  InstructResponse,
  Job,
  ListJobsParams,
  ListJobsResponse,
  ListModelsResponse,
  ListProjectsResponse,
  MoveClipParams,
  ProjectResponse,
  ProjectState,
  RemoveClipResponse,
  RenameParams,
  SetAspectRatioParams,
  SubmitResponse,
  UpdateContextParams,
  VideoResponse,
} from './types';
import { WebhookDeliveries } from './webhook-deliveries';

export const SDK_VERSION = '0.1.0';

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

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

export interface RequestOptions {
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number;
  signal?: AbortSignal;
  /**
   * POST only: the Idempotency-Key to send (1-255 characters). Default: a fresh UUID per call. The
   * SDK's own retries of the call reuse it; pass your own to make your retries safe as well.
   */
  idempotencyKey?: string;
}

/** waitForJob's options (streams.ts). */
export type { WaitForJobOptions } from './streams';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Call {
  method: Method;
  path: string;
  body?: unknown;
  query?: Record<string, string | undefined>;
  exportRoute?: boolean;
  opts?: RequestOptions;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    // The signal's reason, as fetch rejects with it (an AbortError or the caller's own reason).
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const enc = encodeURIComponent;

/**
 * Why a request got no answer, naming the server: Node's fetch says only "fetch failed" and keeps
 * the reason (ECONNREFUSED, ENOTFOUND, a TLS error) in `cause`.
 */
export function unreachable(baseUrl: string, err: unknown): string {
  const e = err as { message?: string; name?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no answer from ${baseUrl} in time (timeoutMs)`;
  const reason = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return `could not reach ${baseUrl} (${reason}). Is the server running, and is the base URL right?`;
}

/**
 * A typed client of the mediaforge API (shared/spec/API.md). Every method resolves the parsed
 * response body or rejects with a typed ApiError subclass.
 */
export class MediaforgeClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly maxRetries: number;
  private readonly fetchImpl: FetchLike;
  private readonly userAgent: string;
  private readonly timeoutMs: number | undefined;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  /** The key's webhook deliveries: list, detail, resend, recover, sample events (webhook-deliveries.ts). */
  readonly webhook = new WebhookDeliveries((call) => this.request(call));
  /** A job's events as they happen: `for await (const e of client.jobs.stream(id))` (streams.ts). */
  readonly jobs: JobsStreams;
  /** The key owner's event log: `events.stream()`, `events.list()` (streams.ts). */
  readonly events: EventsApi;

  constructor(options: MediaforgeClientOptions) {
    if (!options || !options.baseUrl) throw new TypeError('MediaforgeClient: baseUrl is required');
    if (!options.apiKey) throw new TypeError('MediaforgeClient: apiKey is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.userAgent = options.userAgent ?? `mediaforge-sdk-node/${SDK_VERSION}`;
    this.timeoutMs = options.timeoutMs;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.retryMaxMs = options.retryMaxMs ?? 20_000;
    const transport = streamTransport(this.baseUrl, this.apiKey, this.userAgent, this.fetchImpl);
    this.jobs = jobsStreams(transport);
    this.events = eventsApi(transport, (query, signal) =>
      this.request({ method: 'GET', path: '/events', query, opts: { signal } }),
    );
  }

  // ---- models, account ----

  listModels(opts?: RequestOptions): Promise<ListModelsResponse> {
    return this.request({ method: 'GET', path: '/models', opts });
  }

  getAccount(opts?: RequestOptions): Promise<Account> {
    return this.request({ method: 'GET', path: '/account', opts });
  }

  // ---- generation ----

  generateVideo(params: GenerateVideoParams, opts?: RequestOptions): Promise<SubmitResponse> {
    return this.request({ method: 'POST', path: '/video/vidgen-2/generate', body: params, opts });
  }

  generateImage(params: GenerateImageParams, opts?: RequestOptions): Promise<SubmitResponse> {
    return this.request({ method: 'POST', path: '/image/imagegen/generate', body: params, opts });
  }

  /** What a submit would cost and whether the balance covers it; charges nothing (estimate.ts builds the body). */
  estimate(params: EstimateParams, opts?: RequestOptions): Promise<EstimateResponse> {
    return this.request({ method: 'POST', path: '/estimate', body: params, opts });
  }

  // ---- jobs ----

  getJob(id: string, opts?: RequestOptions): Promise<Job> {
    return this.request({ method: 'GET', path: `/jobs/${enc(id)}`, opts });
  }

  /** One page of the key owner's jobs, newest first (scope jobs:read). */
  listJobs(params: ListJobsParams = {}, opts?: RequestOptions): Promise<ListJobsResponse> {
    const query: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) query[k] = String(v);
    return this.request({ method: 'GET', path: '/jobs', query, opts });
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

  cancelJob(id: string, opts?: RequestOptions): Promise<CancelJobResponse> {
    return this.request({ method: 'DELETE', path: `/jobs/${enc(id)}`, opts });
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

  // ---- editor: the contract's operations ----

  createProject(params: CreateProjectParams = {}, opts?: RequestOptions): Promise<ProjectResponse> {
    return this.request({ method: 'POST', path: '/media-studio/projects', body: params, opts });
  }

  listProjects(opts?: RequestOptions): Promise<ListProjectsResponse> {
    return this.request({ method: 'GET', path: '/media-studio/projects', opts });
  }

  getProject(id: string, options: GetProjectOptions & RequestOptions = {}): Promise<ProjectState> {
    const { videoId, ...opts } = options;
    return this.request({
      method: 'GET',
      path: `/media-studio/projects/${enc(id)}`,
      query: { video_id: videoId },
      opts,
    });
  }

  instruct(id: string, body: InstructParams, opts?: RequestOptions): Promise<InstructResponse> {
    return this.request({ method: 'POST', path: `/media-studio/projects/${enc(id)}/instruct`, body, opts });
  }

  /** Rejects with ExportError (code, exportMessage) for the export failures of docs/export.md. */
  exportVideo(id: string, body: ExportParams = {}, opts?: RequestOptions): Promise<ExportResponse> {
    return this.request({
      method: 'POST',
      path: `/media-studio/projects/${enc(id)}/export`,
      body,
      exportRoute: true,
      opts,
    });
  }

  // ---- editor: direct edits (docs/editor-api.md) ----

  createVideo(id: string, body: CreateVideoParams = {}, opts?: RequestOptions): Promise<VideoResponse> {
    return this.request({ method: 'POST', path: `/media-studio/projects/${enc(id)}/videos`, body, opts });
  }

  renameProject(id: string, body: RenameParams, opts?: RequestOptions): Promise<ProjectResponse> {
    return this.request({ method: 'PATCH', path: `/media-studio/projects/${enc(id)}`, body, opts });
  }

  renameVideo(id: string, videoId: string, body: RenameParams, opts?: RequestOptions): Promise<VideoResponse> {
    return this.request({
      method: 'PATCH',
      path: `/media-studio/projects/${enc(id)}/videos/${enc(videoId)}`,
      body,
      opts,
    });
  }

  importAsset(id: string, body: ImportAssetParams, opts?: RequestOptions): Promise<AssetResponse> {
    return this.request({ method: 'POST', path: `/media-studio/projects/${enc(id)}/assets`, body, opts });
  }

  deleteAsset(id: string, assetId: string, opts?: RequestOptions): Promise<DeleteAssetResponse> {
    return this.request({ method: 'DELETE', path: `/media-studio/projects/${enc(id)}/assets/${enc(assetId)}`, opts });
  }

  addClip(id: string, body: AddClipParams, opts?: RequestOptions): Promise<ClipResponse> {
    return this.request({ method: 'POST', path: `/media-studio/projects/${enc(id)}/clips`, body, opts });
  }

  moveClip(id: string, clipId: string, body: MoveClipParams, opts?: RequestOptions): Promise<ClipResponse> {
    return this.request({
      method: 'PATCH',
      path: `/media-studio/projects/${enc(id)}/clips/${enc(clipId)}`,
      body,
      opts,
    });
  }

  removeClip(id: string, clipId: string, opts?: RequestOptions): Promise<RemoveClipResponse> {
    return this.request({ method: 'DELETE', path: `/media-studio/projects/${enc(id)}/clips/${enc(clipId)}`, opts });
  }

  updateContext(id: string, body: UpdateContextParams, opts?: RequestOptions): Promise<ProjectResponse> {
    return this.request({ method: 'PUT', path: `/media-studio/projects/${enc(id)}/context`, body, opts });
  }

  setAspectRatio(id: string, body: SetAspectRatioParams, opts?: RequestOptions): Promise<ProjectResponse> {
    return this.request({ method: 'PUT', path: `/media-studio/projects/${enc(id)}/aspect-ratio`, body, opts });
  }

  // ---- transport ----

  /**
   * Whether a failed attempt may be retried. GET and DELETE (idempotent): 429, 5xx and network
   * errors. POST: 429, 503 and network errors, always with the call's Idempotency-Key, so a request
   * that did run is answered from the server's record instead of running (and charging) twice; a
   * 500 or 502 would only be replayed, so it is not retried. PATCH and PUT: only 429 and 503, where
   * the request was not processed. A replayed answer is final for its key: never retried.
   */
  private static retryable(method: Method, status: number | 'network', replayed = false): boolean {
    if (replayed) return false;
    const idempotent = method === 'GET' || method === 'DELETE';
    if (status === 'network') return idempotent || method === 'POST';
    if (status === 429 || status === 503) return true;
    return idempotent && status >= 500;
  }

  /** Full-jitter exponential backoff, at least the server's Retry-After. */
  private delayMs(attempt: number, retryAfterSec: number | null): number {
    const exp = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** attempt);
    const jittered = exp / 2 + Math.random() * (exp / 2);
    if (retryAfterSec !== null)
      return Math.max(retryAfterSec * 1000, 0) + Math.random() * Math.min(250, this.retryBaseMs);
    return jittered;
  }

  private url(path: string, query?: Record<string, string | undefined>): string {
    const u = `${this.baseUrl}/api/v1${path}`;
    const q = Object.entries(query ?? {}).filter(([, v]) => v !== undefined && v !== '') as [string, string][];
    return q.length ? `${u}?${new URLSearchParams(q).toString()}` : u;
  }

  private async request<T>(call: Call): Promise<T> {
    const maxRetries = Math.max(0, call.opts?.maxRetries ?? this.maxRetries);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: 'application/json',
      'user-agent': this.userAgent,
    };
    // One key for every attempt of this call: a retry of a request that did run replays its answer.
    if (call.method === 'POST') headers['idempotency-key'] = call.opts?.idempotencyKey ?? randomUUID();
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const url = this.url(call.path, call.query);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        const signals = [call.opts?.signal, this.timeoutMs ? AbortSignal.timeout(this.timeoutMs) : undefined].filter(
          Boolean,
        ) as AbortSignal[];
        const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
        res = await this.fetchImpl(url, { method: call.method, headers, body, signal });
      } catch (err) {
        if (call.opts?.signal?.aborted) throw err;
        if (attempt < maxRetries && MediaforgeClient.retryable(call.method, 'network')) {
          await sleep(this.delayMs(attempt, null), call.opts?.signal);
          continue;
        }
        throw new ConnectionError(`${call.method} ${url}: ${unreachable(this.baseUrl, err)}`, err);
      }
      const text = await res.text();
      let parsed: unknown = null;
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      if (res.ok) return parsed as T;
      if (
        attempt < maxRetries &&
        MediaforgeClient.retryable(call.method, res.status, res.headers.get('idempotent-replayed') === 'true')
      ) {
        await sleep(this.delayMs(attempt, parseRetryAfter(res.headers.get('retry-after'))), call.opts?.signal);
        continue;
      }
      const errBody =
        parsed && typeof parsed === 'object' && typeof (parsed as ErrorBody).error === 'string'
          ? (parsed as ErrorBody)
          : (parsed as string | null);
      throw errorFromResponse(res.status, errBody, res.headers, { exportRoute: call.exportRoute });
    }
  }
}
