import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@mf/logger';
import { FfmpegError } from '@mf/media';
import {
  ProviderSubmitError,
  type Provider,
  type ProviderJob,
  type ProviderOutput,
  type ProviderStatus,
} from '../provider';
import { fetchReferences } from './fetch-references';
import { allExist, atomically } from './local-files';
import { nthSeed } from './render-common';
import { LOCAL_ERRORS, RenderFailure } from './render-failure';
import { renderImage } from './render-image';
import { RenderQueue } from './render-queue';
import { renderVideo } from './render-video';
import { imageSize, videoSize } from './sizes';

export interface LocalProviderDeps {
  /** Each request works in `<workDir>/<jobId>/`; its outputs stay there until release. */
  workDir: string;
  ffmpegPath: string;
  /** Renders (ffmpeg runs) at once; more requests wait in arrival order. */
  concurrency: number;
  /** Limit for one ffmpeg run. */
  renderTimeoutMs: number;
  /** Downloads a reference image URL to a local file (the caller's fetch guards against SSRF). */
  fetchReference: (url: string, destPath: string) => Promise<void>;
  logger: Logger;
  /** The provider's name in the providers document (default local). */
  name?: string;
  /** Called when a request takes a render slot and when it gives it back (tests, metrics). */
  onRenderStart?: (requestId: string) => void;
  onRenderEnd?: (requestId: string) => void;
}

const REQUEST_PREFIX = 'local:';
/** Job ids become directory names: only these characters, so no path can escape workDir. */
const SAFE_JOB_ID = /^[A-Za-z0-9_-]{1,128}$/;
const VIDEO_FPS = 24;
/** Finished requests remembered (for their failed/cancelled answer) before the oldest are forgotten. */
const MAX_REMEMBERED = 10_000;

type Phase = 'queued' | 'rendering' | 'done' | 'failed' | 'cancelled';

interface Entry {
  phase: Phase;
  error?: string;
  abort: AbortController;
  /** 0..1 while rendering: ffmpeg's output time over the video's duration, or the images done. */
  progress?: number;
  /** Resolves when the background work has stopped (never rejects). */
  settled: Promise<void>;
}

/**
 * The embedded provider: renders real media offline with ffmpeg (see render-video and
 * render-image). Rendering is deterministic, so a request this process does not know (after a
 * restart, or submitted through another replica) is simply rendered again when polled.
 */
export class LocalProvider implements Provider {
  readonly name: string;
  readonly type = 'local' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly queue: RenderQueue;

  constructor(private readonly deps: LocalProviderDeps) {
    this.name = deps.name ?? 'local';
    this.queue = new RenderQueue(deps.concurrency);
  }

  // async: a refusal thrown here is a rejection, as the Provider interface promises.
  // eslint-disable-next-line @typescript-eslint/require-await
  async submit(job: ProviderJob): Promise<{ requestId: string }> {
    if (!SAFE_JOB_ID.test(job.jobId)) throw new ProviderSubmitError('job id is not usable as a local request id');
    const requestId = REQUEST_PREFIX + job.jobId;
    const known = this.entries.get(requestId);
    if (!known || !isActive(known.phase)) this.start(requestId, job);
    return { requestId };
  }

  async status(requestId: string, job: ProviderJob): Promise<ProviderStatus> {
    if (!this.matches(requestId, job)) return { state: 'failed', error: LOCAL_ERRORS.unknown };
    try {
      const entry = this.entries.get(requestId);
      if (entry?.phase === 'cancelled') return { state: 'failed', error: LOCAL_ERRORS.cancelled };
      if (entry?.phase === 'failed') return { state: 'failed', error: entry.error ?? LOCAL_ERRORS.render };
      if (entry && isActive(entry.phase))
        return entry.phase === 'rendering' ? { state: 'running', progress: entry.progress ?? 0 } : { state: 'running' };

      const outputs = this.outputs(job);
      if (await allExist(outputs)) return { state: 'completed', outputs };

      // Unknown here (restart, other replica) or its files are gone: render again. Re-check after
      // the await so two concurrent polls start one render.
      const now = this.entries.get(requestId);
      if (!now || now === entry) this.start(requestId, job);
      return { state: 'running' };
    } catch (err) {
      this.deps.logger.error({ err, requestId }, 'local provider status failed');
      return { state: 'failed', error: LOCAL_ERRORS.render };
    }
  }

  async cancel(requestId: string, job: ProviderJob): Promise<void> {
    if (!this.matches(requestId, job)) return;
    const entry = this.entries.get(requestId);
    if (entry) {
      entry.phase = 'cancelled';
      entry.abort.abort();
      await entry.settled;
    } else {
      this.remember(requestId, { phase: 'cancelled', abort: new AbortController(), settled: Promise.resolve() });
    }
    await rm(this.dirOf(job.jobId), { recursive: true, force: true });
  }

  async release(requestId: string): Promise<void> {
    const jobId = requestId.startsWith(REQUEST_PREFIX) ? requestId.slice(REQUEST_PREFIX.length) : '';
    if (!SAFE_JOB_ID.test(jobId)) return;
    const entry = this.entries.get(requestId);
    if (entry && isActive(entry.phase)) {
      entry.abort.abort();
      await entry.settled;
    }
    this.entries.delete(requestId);
    await rm(this.dirOf(jobId), { recursive: true, force: true });
  }

  /** Stops every queued and running render (service shutdown); their files stay for a re-render. */
  async close(): Promise<void> {
    const active = [...this.entries.entries()].filter(([, e]) => isActive(e.phase));
    for (const [id, e] of active) {
      e.abort.abort();
      this.entries.delete(id);
    }
    await Promise.all(active.map(([, e]) => e.settled));
  }

  /** Renders in progress or waiting (for metrics and tests). */
  get pending(): { rendering: number; queued: number } {
    return { rendering: this.queue.active, queued: this.queue.queued };
  }

  private matches(requestId: string, job: ProviderJob): boolean {
    return SAFE_JOB_ID.test(job.jobId) && requestId === REQUEST_PREFIX + job.jobId;
  }

  private dirOf(jobId: string): string {
    return path.join(this.deps.workDir, jobId);
  }

  private outputs(job: ProviderJob): Array<ProviderOutput & { kind: 'file' }> {
    const dir = this.dirOf(job.jobId);
    if (job.type === 'video') return [{ kind: 'file', path: path.join(dir, 'output.mp4'), contentType: 'video/mp4' }];
    return Array.from({ length: job.params.num_images }, (_, i) => ({
      kind: 'file',
      path: path.join(dir, `output-${i}.png`),
      contentType: 'image/png',
    }));
  }

  private start(requestId: string, job: ProviderJob): void {
    const entry: Entry = { phase: 'queued', abort: new AbortController(), settled: Promise.resolve() };
    entry.settled = this.run(requestId, job, entry);
    this.remember(requestId, entry);
  }

  /** Keeps an entry, forgetting the oldest finished ones beyond MAX_REMEMBERED. */
  private remember(requestId: string, entry: Entry): void {
    this.entries.delete(requestId); // re-insert so insertion order is age order
    this.entries.set(requestId, entry);
    if (this.entries.size <= MAX_REMEMBERED) return;
    for (const [id, e] of this.entries) {
      if (this.entries.size <= MAX_REMEMBERED) break;
      if (!isActive(e.phase)) this.entries.delete(id);
    }
  }

  private async run(requestId: string, job: ProviderJob, entry: Entry): Promise<void> {
    const signal = entry.abort.signal;
    const log = this.deps.logger.child({ requestId, jobId: job.jobId });
    try {
      const dir = this.dirOf(job.jobId);
      await mkdir(dir, { recursive: true });
      const references = await fetchReferences(this.deps.fetchReference, job, dir, signal);

      await this.queue.run(async () => {
        entry.phase = entry.phase === 'queued' ? 'rendering' : entry.phase;
        this.deps.onRenderStart?.(requestId);
        try {
          await this.render(job, references, signal, (fraction) => (entry.progress = fraction));
        } finally {
          this.deps.onRenderEnd?.(requestId);
        }
      }, signal);
      if (entry.phase === 'rendering') entry.phase = 'done';
    } catch (err) {
      if (signal.aborted || entry.phase === 'cancelled') return;
      entry.phase = 'failed';
      entry.error = err instanceof RenderFailure ? err.safeMessage : LOCAL_ERRORS.render;
      const cause = err instanceof RenderFailure ? err.cause : err;
      const detail =
        cause instanceof FfmpegError
          ? { kind: cause.kind, exitCode: cause.exitCode, stderrTail: cause.stderrTail }
          : { err: cause };
      log.warn(detail, `local render failed: ${entry.error}`);
    }
  }

  private async render(
    job: ProviderJob,
    references: string[],
    signal: AbortSignal,
    onProgress: (fraction: number) => void,
  ): Promise<void> {
    const common = { ffmpegPath: this.deps.ffmpegPath, timeoutMs: this.deps.renderTimeoutMs, signal };
    const outputs = this.outputs(job);
    try {
      if (job.type === 'video') {
        const p = job.params;
        await atomically(outputs[0].path, (tmp) =>
          renderVideo({
            ...common,
            outFile: tmp,
            ...videoSize(p.aspect_ratio, p.resolution),
            durationSeconds: p.duration_seconds,
            fps: VIDEO_FPS,
            prompt: p.prompt,
            seed: p.seed,
            audio: p.generate_audio,
            referenceImage: references[0],
            onProgress,
          }),
        );
      } else {
        const p = job.params;
        for (const [i, output] of outputs.entries()) {
          signal.throwIfAborted();
          await atomically(output.path, (tmp) =>
            renderImage({
              ...common,
              outFile: tmp,
              ...imageSize(p.aspect_ratio),
              prompt: p.prompt,
              seed: nthSeed(p.seed, i),
              references,
            }),
          );
          onProgress((i + 1) / outputs.length);
        }
      }
    } catch (cause) {
      throw new RenderFailure(
        cause instanceof FfmpegError && cause.kind === 'timeout' ? LOCAL_ERRORS.timeout : LOCAL_ERRORS.render,
        { cause },
      );
    }
  }
}

function isActive(phase: Phase): boolean {
  return phase === 'queued' || phase === 'rendering';
}
