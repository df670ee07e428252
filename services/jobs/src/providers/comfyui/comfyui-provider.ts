import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AxiosInstance } from 'axios';
import type { Logger } from '@mf/logger';
import { downloadTo, field, statusCall, submitCall, upstreamClient, type HttpAdapterDeps } from '../http';
import {
  ProviderSubmitError,
  UnsupportedParameterError,
  type Mode,
  type Provider,
  type ProviderJob,
  type ProviderOutput,
  type ProviderStatus,
} from '../provider';
import { ProgressSocket } from './progress-socket';
import { assertHonours, fillWorkflow, loadWorkflow, placeholderValues, workflowPath, type Workflow } from './workflows';

export interface ComfyUiProviderDeps extends HttpAdapterDeps {
  workflowsDir: string;
  logger: Logger;
  fetchReference: (url: string, destPath: string) => Promise<void>;
  /** Follow /ws progress messages (default true). */
  progress?: boolean;
}

export const COMFY_ERRORS = {
  failed: 'the provider reported a failure',
  noMedia: 'the provider returned no media',
  lost: 'the provider no longer knows the prompt',
} as const;

const PROMPT_ID = /^[A-Za-z0-9-]{1,100}$/;
const VIDEO_EXT = /\.(mp4|webm|mov|mkv)$/i;
const IMAGE_EXT = /\.(png|jpe?g|webp)$/i;
const SAFE_NAME = /^[^/\\]{1,255}$/;

/**
 * A ComfyUI server (https://docs.comfy.org/development/comfyui-server/comms_routes): a workflow per
 * model and mode, filled and queued with `POST /prompt`, followed with `GET /history/{prompt_id}`
 * (and `/queue`, to tell a queued prompt from a lost one) and `/ws` progress, outputs fetched with
 * `GET /view`, reference images sent with `POST /upload/image`. ComfyUI has no keys; its base URL is
 * usually a private address, which is why its files are fetched by the adapter itself.
 */
export class ComfyUiProvider implements Provider {
  readonly type = 'comfyui' as const;
  readonly name: string;
  private readonly http: AxiosInstance;
  private readonly clientId = randomUUID();
  private readonly socket: ProgressSocket | null;

  constructor(private readonly deps: ComfyUiProviderDeps) {
    this.name = deps.name;
    this.http = upstreamClient(deps, deps.apiKey ? { Authorization: `Bearer ${deps.apiKey}` } : {});
    const ws = new URL('/ws', deps.baseUrl.replace(/^http/, 'ws'));
    ws.searchParams.set('clientId', this.clientId);
    this.socket = deps.progress === false ? null : new ProgressSocket(ws.toString(), deps.logger);
  }

  /** The workflows each model's routes need exist and are valid: checked at start-up. */
  static checkWorkflows(dir: string, model: string, modes: Mode[]): void {
    if (!fs.existsSync(dir)) throw new Error(`workflows_dir ${dir} does not exist`);
    const files = modes
      .map((m) => workflowPath(dir, model, m))
      .filter((f): f is string => f !== null && fs.existsSync(f));
    if (!files.length)
      throw new Error(
        `no workflow for ${model} in ${dir} (expected ${modes.map((m) => `${model}.${m}.json`).join(' or ')})`,
      );
    for (const f of files) loadWorkflow(f);
  }

  async submit(job: ProviderJob): Promise<{ requestId: string }> {
    const file = workflowPath(this.deps.workflowsDir, job.upstreamModel, job.mode);
    if (!file || !fs.existsSync(file))
      throw new UnsupportedParameterError(`no comfyui workflow ${job.upstreamModel}.${job.mode}.json`);
    let wf: Workflow;
    try {
      wf = loadWorkflow(file);
    } catch {
      throw new ProviderSubmitError(`comfyui workflow ${job.upstreamModel}.${job.mode}.json is not valid`);
    }
    const references =
      job.type === 'video' ? (job.params.image_url ? [job.params.image_url] : []) : job.params.image_urls;
    assertHonours(wf, job.upstreamModel, references.length > 0, job.type === 'image' ? job.params.num_images : 1);
    if (references.length > 1)
      throw new UnsupportedParameterError(
        `comfyui workflow ${job.upstreamModel} takes one reference image, not ${references.length}`,
      );
    const image = references.length ? await this.upload(references[0], job.jobId) : undefined;
    const prompt = fillWorkflow(wf.graph, placeholderValues(job.params, job.type, wf.meta, image));
    const res = await submitCall('comfyui', () =>
      this.http.post(
        '/prompt',
        { prompt, client_id: this.clientId },
        { headers: { 'Content-Type': 'application/json' } },
      ),
    );
    const id = field(res.data, 'prompt_id');
    if (typeof id !== 'string' || !PROMPT_ID.test(id))
      throw new ProviderSubmitError('comfyui answered without a prompt id');
    this.socket?.follow(id);
    return { requestId: id };
  }

  async status(requestId: string, job: ProviderJob): Promise<ProviderStatus> {
    if (!PROMPT_ID.test(requestId)) return { state: 'failed', error: COMFY_ERRORS.lost };
    const res = await statusCall('comfyui', () => this.http.get(`/history/${requestId}`));
    const entry = field(res.data, requestId);
    if (!entry) {
      if (await this.queued(requestId)) return { state: 'running', progress: this.socket?.progressOf(requestId) };
      // Neither queued nor in the history: ComfyUI restarted (its queue and history are in memory).
      // Ask the history once more: the prompt may have finished between the two calls.
      const again = field((await statusCall('comfyui', () => this.http.get(`/history/${requestId}`))).data, requestId);
      if (!again) return this.end(requestId, { state: 'failed', error: COMFY_ERRORS.lost });
      return this.finished(requestId, job, again);
    }
    return this.finished(requestId, job, entry);
  }

  async cancel(requestId: string, job: ProviderJob): Promise<void> {
    if (!PROMPT_ID.test(requestId)) return;
    this.socket?.forget(requestId);
    try {
      // Pending: delete it from the queue. Running: interrupt it, only when it is ours that runs
      // (an interrupt without prompt_id stops whatever runs on older ComfyUI versions).
      await this.http.post('/queue', { delete: [requestId] }, { headers: { 'Content-Type': 'application/json' } });
      const queue = await this.http.get('/queue');
      if (queueIds(field(queue.data, 'queue_running')).includes(requestId)) {
        await this.http.post(
          '/interrupt',
          { prompt_id: requestId },
          { headers: { 'Content-Type': 'application/json' } },
        );
      }
    } catch {
      this.deps.logger.warn({ requestId, jobId: job.jobId }, 'comfyui cancel failed');
    }
  }

  release(requestId: string): Promise<void> {
    this.socket?.forget(requestId);
    return Promise.resolve();
  }

  close(): void {
    this.socket?.close();
  }

  private finished(requestId: string, job: ProviderJob, entry: unknown): ProviderStatus {
    const status = field(entry, 'status');
    if (field(status, 'status_str') === 'error') {
      this.deps.logger.warn({ requestId, jobId: job.jobId }, 'comfyui reported a failed prompt');
      return this.end(requestId, { state: 'failed', error: COMFY_ERRORS.failed });
    }
    if (field(status, 'completed') === false) return { state: 'running', progress: this.socket?.progressOf(requestId) };
    const outputs = this.outputsOf(job, field(entry, 'outputs'));
    return this.end(
      requestId,
      outputs.length ? { state: 'completed', outputs } : { state: 'failed', error: COMFY_ERRORS.noMedia },
    );
  }

  private end(requestId: string, status: ProviderStatus): ProviderStatus {
    this.socket?.forget(requestId);
    return status;
  }

  /** Files the prompt wrote as outputs (any node's images, gifs or videos list) of the job's kind. */
  private outputsOf(job: ProviderJob, outputs: unknown): ProviderOutput[] {
    const files: { filename: string; subfolder: string; type: string }[] = [];
    if (outputs && typeof outputs === 'object') {
      for (const node of Object.values(outputs as Record<string, unknown>)) {
        for (const list of ['images', 'gifs', 'videos', 'video'].map((k) => field(node, k))) {
          if (!Array.isArray(list)) continue;
          for (const f of list) {
            const filename = field(f, 'filename');
            const subfolder = field(f, 'subfolder') ?? '';
            const type = field(f, 'type') ?? 'output';
            if (
              typeof filename === 'string' &&
              SAFE_NAME.test(filename) &&
              typeof subfolder === 'string' &&
              type === 'output'
            )
              files.push({ filename, subfolder, type });
          }
        }
      }
    }
    const wanted = files.filter((f) => (job.type === 'video' ? VIDEO_EXT : IMAGE_EXT).test(f.filename));
    const chosen = job.type === 'video' ? wanted.slice(0, 1) : wanted.slice(0, job.params.num_images);
    return chosen.map((f) => ({
      kind: 'download',
      contentType: job.type === 'video' ? 'video/mp4' : 'image/png',
      download: (dest: string) =>
        downloadTo(this.http, '/view', dest, {
          maxBytes: this.deps.resultMaxBytes,
          params: { filename: f.filename, subfolder: f.subfolder, type: f.type },
        }),
    }));
  }

  private async queued(requestId: string): Promise<boolean> {
    const res = await statusCall('comfyui', () => this.http.get('/queue'));
    return [...queueIds(field(res.data, 'queue_running')), ...queueIds(field(res.data, 'queue_pending'))].includes(
      requestId,
    );
  }

  /** Sends a reference image (fetched safely) to ComfyUI's input folder; returns the name to load it by. */
  private async upload(url: string, jobId: string): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mf-comfy-'));
    try {
      const file = path.join(dir, 'reference');
      await this.deps.fetchReference(url, file);
      const form = new FormData();
      form.append('image', new Blob([await readFile(file)]), `mediaforge-${jobId}-${randomUUID().slice(0, 8)}.png`);
      form.set('type', 'input');
      form.set('overwrite', 'true');
      const res = await submitCall('comfyui upload', () => this.http.post('/upload/image', form));
      const name = field(res.data, 'name');
      const subfolder = field(res.data, 'subfolder');
      if (typeof name !== 'string' || !name) throw new ProviderSubmitError('comfyui upload answered without a name');
      return typeof subfolder === 'string' && subfolder ? `${subfolder}/${name}` : name;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** Prompt ids of a /queue list: each item is [number, prompt_id, prompt, extra_data, outputs]. */
function queueIds(list: unknown): string[] {
  return Array.isArray(list)
    ? list
        .map((item: unknown) => (Array.isArray(item) ? (item as unknown[])[1] : undefined))
        .filter((x): x is string => typeof x === 'string')
    : [];
}
