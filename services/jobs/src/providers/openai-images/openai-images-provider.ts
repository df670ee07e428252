import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AxiosInstance, AxiosResponse } from 'axios';
import type { ImageParams } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { StorageNotFoundError, type Storage } from '@mf/storage';
import { downloadTo, field, submitCall, upstreamClient, type HttpAdapterDeps } from '../http';
import {
  ProviderSubmitError,
  type Provider,
  type ProviderJob,
  type ProviderOutput,
  type ProviderStatus,
} from '../provider';
import { imagesRequest } from './openai-images-mapping';

export interface OpenAiImagesProviderDeps extends HttpAdapterDeps {
  logger: Logger;
  /** Shared storage: a finished request's images wait here for whichever replica polls the job. */
  storage: Storage;
  /** Downloads a reference image (the caller's fetch guards against SSRF). */
  fetchReference: (url: string, destPath: string) => Promise<void>;
  /** Longest one images call may take (generation is synchronous upstream), ms. */
  requestTimeoutMs: number;
  sizes?: Record<string, string>;
}

export const OPENAI_IMAGES_ERRORS = {
  failed: 'the provider reported a failure',
  noMedia: 'the provider returned no media',
  lost: 'the request was lost (the service restarted while it ran)',
} as const;

/** Request ids carry their start time, so any replica can tell a lost request from a running one. */
const REQUEST_ID = /^oai-(\d{13})-([0-9a-f-]{36})$/;
const STAGING = 'provider-staging';

type Manifest = { state: 'completed'; count: number } | { state: 'failed'; error: string };

/**
 * An OpenAI-compatible images server (OpenAI, Azure, LocalAI, ...): `POST /images/generations`
 * (JSON) and `POST /images/edits` (multipart with the reference images), answered synchronously with
 * `data[].b64_json` or `data[].url`. The call runs in the background of the replica that submitted
 * it; its images (or its failure) are staged in our storage, so status answers on every replica.
 */
export class OpenAiImagesProvider implements Provider {
  readonly type = 'openai-images' as const;
  readonly name: string;
  private readonly http: AxiosInstance;
  /** For image URLs on other hosts: never sent the key. */
  private readonly plain: AxiosInstance;
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly deps: OpenAiImagesProviderDeps) {
    this.name = deps.name;
    this.http = upstreamClient(
      { ...deps, timeoutMs: deps.requestTimeoutMs },
      deps.apiKey ? { Authorization: `Bearer ${deps.apiKey}` } : {},
    );
    this.plain = upstreamClient({ ...deps, baseUrl: '' }, {});
  }

  // async: a refusal thrown here is a rejection, as the Provider interface promises.
  // eslint-disable-next-line @typescript-eslint/require-await
  async submit(job: ProviderJob): Promise<{ requestId: string }> {
    if (job.type !== 'image') throw new ProviderSubmitError('openai-images makes images only');
    // Mapped before anything runs: a value the model cannot honour fails this attempt at once.
    const plan = imagesRequest(job.upstreamModel, job.params, this.deps.sizes);
    const requestId = `oai-${Date.now()}-${randomUUID()}`;
    const abort = new AbortController();
    this.running.set(requestId, abort);
    void this.run(requestId, job.params, plan, abort.signal)
      .catch((err: Error) =>
        this.deps.logger.error(
          { err: err.message, requestId, jobId: job.jobId },
          'openai-images request could not be staged',
        ),
      )
      .finally(() => this.running.delete(requestId));
    return { requestId };
  }

  async status(requestId: string, job: ProviderJob): Promise<ProviderStatus> {
    const m = REQUEST_ID.exec(requestId);
    if (!m) return { state: 'failed', error: OPENAI_IMAGES_ERRORS.lost };
    if (this.running.has(requestId)) return { state: 'running' };
    const manifest = await this.readManifest(requestId);
    if (manifest?.state === 'failed') return { state: 'failed', error: manifest.error };
    if (manifest?.state === 'completed') {
      const outputs: ProviderOutput[] = Array.from({ length: manifest.count }, (_, i) => ({
        kind: 'download',
        contentType: 'image/png',
        download: async (dest: string) =>
          writeFile(dest, await streamToBuffer(await this.deps.storage.get(`${STAGING}/${requestId}/image-${i + 1}`))),
      }));
      return { state: 'completed', outputs };
    }
    // Running on another replica, or lost with a replica that died: its own timeout tells them apart.
    if (Date.now() - Number(m[1]) > this.deps.requestTimeoutMs + 60_000) {
      this.deps.logger.warn({ requestId, jobId: job.jobId }, 'openai-images request lost');
      return { state: 'failed', error: OPENAI_IMAGES_ERRORS.lost };
    }
    return { state: 'running' };
  }

  cancel(requestId: string): Promise<void> {
    this.running.get(requestId)?.abort();
    return Promise.resolve();
  }

  async release(requestId: string): Promise<void> {
    if (REQUEST_ID.test(requestId)) await this.deps.storage.deletePrefix(`${STAGING}/${requestId}/`);
  }

  private async run(
    requestId: string,
    params: ImageParams,
    plan: ReturnType<typeof imagesRequest>,
    signal: AbortSignal,
  ): Promise<void> {
    let manifest: Manifest;
    try {
      const res = await this.call(params, plan, signal);
      const images = await this.imagesOf(res);
      for (const [i, bytes] of images.entries())
        await this.deps.storage.put(`${STAGING}/${requestId}/image-${i + 1}`, bytes, 'image/png');
      manifest = images.length
        ? { state: 'completed', count: images.length }
        : { state: 'failed', error: OPENAI_IMAGES_ERRORS.noMedia };
    } catch (err) {
      if (signal.aborted) return;
      this.deps.logger.warn({ requestId, err: (err as Error).message }, 'openai-images request failed');
      manifest = { state: 'failed', error: OPENAI_IMAGES_ERRORS.failed };
    }
    await this.deps.storage.put(
      `${STAGING}/${requestId}/manifest.json`,
      Buffer.from(JSON.stringify(manifest)),
      'application/json',
    );
  }

  private async call(
    params: ImageParams,
    plan: ReturnType<typeof imagesRequest>,
    signal: AbortSignal,
  ): Promise<AxiosResponse<unknown>> {
    if (!params.image_urls.length)
      return submitCall('openai-images', () =>
        this.http.post('/images/generations', plan, { signal, headers: { 'Content-Type': 'application/json' } }),
      );
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mf-oai-'));
    try {
      const form = new FormData();
      form.set('model', plan.model);
      form.set('prompt', plan.prompt);
      form.set('n', String(plan.n));
      form.set('size', plan.size);
      // One reference is `image`; several are `image[]` (gpt-image-1 takes up to 16).
      const field = params.image_urls.length > 1 ? 'image[]' : 'image';
      for (const [i, url] of params.image_urls.entries()) {
        const file = path.join(dir, `ref-${i}`);
        await this.deps.fetchReference(url, file);
        form.append(field, new Blob([await readFile(file)], { type: 'image/png' }), `reference-${i + 1}.png`);
      }
      return await submitCall('openai-images', () => this.http.post('/images/edits', form, { signal }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** data[].b64_json or data[].url (fetched from the server itself, or any https URL). */
  private async imagesOf(res: AxiosResponse<unknown>): Promise<Buffer[]> {
    const data = field(res.data, 'data');
    if (!Array.isArray(data)) return [];
    const out: Buffer[] = [];
    for (const item of data) {
      const b64 = field(item, 'b64_json');
      const url = field(item, 'url');
      if (typeof b64 === 'string' && b64) out.push(Buffer.from(b64, 'base64'));
      else if (typeof url === 'string' && this.fetchable(url)) out.push(await this.fetchUrl(url));
    }
    return out.filter((b) => b.length > 0);
  }

  private fetchable(url: string): boolean {
    try {
      const u = new URL(url);
      return u.protocol === 'https:' || u.origin === new URL(this.deps.baseUrl).origin;
    } catch {
      return false;
    }
  }

  private async fetchUrl(url: string): Promise<Buffer> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mf-oai-'));
    try {
      const file = path.join(dir, 'image');
      // Only a URL on the server's own origin gets the key.
      const sameOrigin = new URL(url).origin === new URL(this.deps.baseUrl).origin;
      await downloadTo(sameOrigin ? this.http : this.plain, url, file, { maxBytes: this.deps.resultMaxBytes });
      return await readFile(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async readManifest(requestId: string): Promise<Manifest | null> {
    try {
      return JSON.parse(
        (await streamToBuffer(await this.deps.storage.get(`${STAGING}/${requestId}/manifest.json`))).toString('utf8'),
      ) as Manifest;
    } catch (err) {
      if (err instanceof StorageNotFoundError) return null;
      throw err;
    }
  }
}

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
