import type { ImageModelId, ImageParams, Mode, VideoModelId, VideoParams } from '@mf/contracts';

/** What a request asks for; each route names an upstream model per mode. */
export type { Mode };

/** The adapters a providers document may name. */
export const PROVIDER_TYPES = ['local', 'fal', 'replicate', 'openrouter', 'openai-images', 'comfyui'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

interface ProviderJobBase {
  jobId: string;
  mode: Mode;
  /** The upstream model (or fal endpoint, or ComfyUI workflow name) of this attempt's route. */
  upstreamModel: string;
  /** 1-based number of this attempt of the job. */
  attempt: number;
  /** Where the upstream may call us back when it finishes (upstreams that support callbacks only). */
  callbackUrl?: string;
}

/** What a provider is asked to make. */
export type ProviderJob =
  | (ProviderJobBase & { type: 'video'; modelId: VideoModelId; params: VideoParams })
  | (ProviderJobBase & { type: 'image'; modelId: ImageModelId; params: ImageParams });

/**
 * One produced file: on local disk (local provider), at a public https URL (fetched with the
 * result limits), or fetched by the adapter itself (an upstream that wants its key for the download).
 */
export type ProviderOutput =
  | { kind: 'file'; path: string; contentType: string }
  | { kind: 'url'; url: string; contentType?: string }
  | { kind: 'download'; contentType?: string; download: (destPath: string) => Promise<void> };

/**
 * What an upstream says a request used, when it says: its cost in US dollars (OpenRouter's
 * `usage.cost`), seconds of compute (Replicate's `metrics.predict_time`), or billed units (fal's
 * `x-fal-billable-units`). The last two are priced with the route's `cost` (docs/providers.md).
 */
export type UpstreamUsage = { costUsd: number } | { computeSeconds: number } | { billedUnits: number };

export type ProviderStatus =
  /** progress: 0..1 when the upstream tells (logs, progress messages); queuePosition: its place in the upstream's queue before it starts. */
  | { state: 'running'; progress?: number; queuePosition?: number }
  | { state: 'completed'; outputs: ProviderOutput[]; usage?: UpstreamUsage }
  /** error: a message safe to show the job's owner (never upstream text). */
  | { state: 'failed'; error: string; usage?: UpstreamUsage };

/** A finite, non-negative number from an upstream's answer, else undefined. */
export function amountOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * A submit the provider refused or could not take (network, 5xx, 429, 4xx): this attempt fails and
 * the next route is tried. The message is ours (status codes, error codes), never upstream text.
 */
export class ProviderSubmitError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'ProviderSubmitError';
  }
}

/**
 * A parameter value this upstream cannot honour (a duration it does not offer, an aspect ratio it has
 * no size for): decided here, before any call, so it says nothing about the upstream's health.
 */
export class UnsupportedParameterError extends ProviderSubmitError {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedParameterError';
  }
}

/** What the caller knows about a request before asking its status: a hint, never trusted as the answer. */
export interface StatusHint {
  calledBack?: boolean;
  /** The callback's raw body and signature headers, when the upstream signed it (see callbackResult). */
  callback?: CallbackDelivery;
}

/** A provider callback as the gateway received it: the raw body and the signature headers. */
export interface CallbackDelivery {
  headers: Record<string, string>;
  body: string;
}

/** What a verified callback says about its request, when the provider can tell. */
export interface CallbackVerdict {
  /** false: the signature is missing or wrong (the callback is ignored). */
  authentic: boolean;
  /** The upstream request the body is about, and whether it reports success. */
  requestId?: string;
  succeeded?: boolean;
}

/**
 * A media provider. submit must return quickly (work happens elsewhere); status is polled until
 * completed or failed; cancel is best effort. status may be called by any replica of the jobs
 * service, also after a restart, for any request id submit returned.
 */
export interface Provider {
  /** The provider's name in the providers document (the shorthand's: local or fal). */
  readonly name: string;
  readonly type: ProviderType;
  submit(job: ProviderJob): Promise<{ requestId: string }>;
  /** `hint.calledBack`: the upstream has just called back about the request (so it has likely ended). */
  status(requestId: string, job: ProviderJob, hint?: StatusHint): Promise<ProviderStatus>;
  cancel(requestId: string, job: ProviderJob): Promise<void>;
  /** Frees what the provider keeps for a request once its outputs are stored (temp files). */
  release?(requestId: string): Promise<void>;
  /** Whether submit should be given a callback URL (the upstream calls it when the request ends). */
  readonly wantsCallback?: boolean;
  /** Checks a callback's signature, for upstreams that sign them and a configured secret. */
  verifyCallback?(delivery: CallbackDelivery | undefined): CallbackVerdict;
  /**
   * The outcome a callback carries, used instead of a status call: only when its signature proves
   * it the upstream's and it is about `requestId` and has ended; undefined otherwise (the status is
   * asked as usual). Never throws.
   */
  callbackResult?(delivery: CallbackDelivery, requestId: string, job: ProviderJob): Promise<ProviderStatus | undefined>;
}
