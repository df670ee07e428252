import type { ImageParams, VideoParams } from '@mf/contracts';

/** What a provider is asked to make. */
export type ProviderJob =
  | { jobId: string; type: 'video'; modelId: 'vidgen-2.0' | 'vidgen-2.0-fast'; upstreamModel: string; params: VideoParams; callbackUrl?: string }
  | { jobId: string; type: 'image'; modelId: 'imagegen-2'; upstreamModel: string; params: ImageParams; callbackUrl?: string };

/** One produced file: on local disk (local provider) or at a URL (upstream provider). */
export type ProviderOutput = { kind: 'file'; path: string; contentType: string } | { kind: 'url'; url: string; contentType?: string };

export type ProviderStatus =
  | { state: 'running' }
  | { state: 'completed'; outputs: ProviderOutput[] }
  | { state: 'failed'; error: string };

/** A submit the provider refused or could not take: the job is refunded and the client gets 502. */
export class ProviderSubmitError extends Error {
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = 'ProviderSubmitError';
  }
}

/**
 * A media provider. submit must return quickly (work happens elsewhere); status is polled until
 * completed or failed; cancel is best effort. status may be called by any replica of the jobs
 * service, also after a restart, for any request id submit returned.
 */
export interface Provider {
  readonly name: 'local' | 'fal';
  submit(job: ProviderJob): Promise<{ requestId: string }>;
  status(requestId: string, job: ProviderJob): Promise<ProviderStatus>;
  cancel(requestId: string, job: ProviderJob): Promise<void>;
  /** Frees what the provider keeps for a request once its outputs are stored (temp files). */
  release?(requestId: string): Promise<void>;
}
