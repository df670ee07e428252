import fs from 'node:fs';
import path from 'node:path';
import type { ImageParams, VideoParams } from '@mf/contracts';
import { UnsupportedParameterError, type Mode } from '../provider';
import { imageSize, videoSize } from '../local/sizes';

/**
 * ComfyUI workflows (docs/providers.md, "comfyui"): one file per upstream model and mode,
 * `<workflows_dir>/<model>.<mode>.json`, in ComfyUI's API format (node id -> { class_type, inputs }),
 * with placeholders in input values: `{{prompt}}`, `{{seed}}`, `{{width}}`, `{{height}}`,
 * `{{duration}}`, `{{frames}}`, `{{fps}}`, `{{batch_size}}`, `{{image}}`. A value that is exactly one
 * placeholder takes its type (a number stays a number); inside a longer string it is text. An
 * optional top-level `"mediaforge": { "fps": 24, "frames_multiple_of": 1, "frames_offset": 0 }`
 * says how frames follow from the duration, and is not sent.
 */

export interface WorkflowMeta {
  fps: number;
  framesMultipleOf: number;
  framesOffset: number;
}

export interface Workflow {
  graph: Record<string, unknown>;
  meta: WorkflowMeta;
  placeholders: Set<string>;
}

const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const PLACEHOLDER = /\{\{(\w+)\}\}/g;
const KNOWN = new Set(['prompt', 'seed', 'width', 'height', 'duration', 'frames', 'fps', 'batch_size', 'image']);

export function workflowPath(dir: string, model: string, mode: Mode): string | null {
  if (!MODEL_NAME.test(model) || model.includes('..')) return null;
  return path.join(dir, `${model}.${mode}.json`);
}

/** Reads and checks one workflow; throws an Error naming the file and the problem. */
export function loadWorkflow(file: string): Workflow {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${(err as NodeJS.ErrnoException).code ?? 'not valid JSON'}`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new Error(`${file}: not a workflow in API format (an object of nodes)`);
  const { mediaforge, ...graph } = raw as Record<string, unknown>;
  for (const [id, node] of Object.entries(graph)) {
    if (!node || typeof node !== 'object' || typeof (node as Record<string, unknown>).class_type !== 'string') {
      throw new Error(`${file}: node ${id} has no class_type (export the workflow with "Save (API Format)")`);
    }
  }
  const placeholders = new Set<string>();
  JSON.stringify(graph).replace(PLACEHOLDER, (_m, name: string) => {
    placeholders.add(name);
    return '';
  });
  const unknown = [...placeholders].find((p) => !KNOWN.has(p));
  if (unknown) throw new Error(`${file}: unknown placeholder {{${unknown}}} (known: ${[...KNOWN].join(', ')})`);
  const m = (mediaforge ?? {}) as Record<string, unknown>;
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  return {
    graph,
    placeholders,
    meta: {
      fps: num(m.fps, 24) || 24,
      framesMultipleOf: Math.max(1, num(m.frames_multiple_of, 1)),
      framesOffset: num(m.frames_offset, 0),
    },
  };
}

/** The values of a job's placeholders (`image`: the uploaded reference's name, when there is one). */
export function placeholderValues(
  params: VideoParams | ImageParams,
  type: 'video' | 'image',
  meta: WorkflowMeta,
  image?: string,
): Record<string, string | number> {
  if (type === 'video') {
    const p = params as VideoParams;
    const size = videoSize(p.aspect_ratio, p.resolution);
    const raw = Math.round(p.duration_seconds * meta.fps);
    const frames = Math.ceil(raw / meta.framesMultipleOf) * meta.framesMultipleOf + meta.framesOffset;
    return {
      prompt: p.prompt,
      seed: p.seed,
      width: multipleOf16(size.width),
      height: multipleOf16(size.height),
      duration: p.duration_seconds,
      frames,
      fps: meta.fps,
      batch_size: 1,
      ...(image ? { image } : {}),
    };
  }
  const p = params as ImageParams;
  const size = imageSize(p.aspect_ratio);
  return {
    prompt: p.prompt,
    seed: p.seed,
    width: size.width,
    height: size.height,
    batch_size: p.num_images,
    ...(image ? { image } : {}),
  };
}

/** Checks the workflow can honour the job (a reference needs {{image}}, several images {{batch_size}}). */
export function assertHonours(wf: Workflow, model: string, hasReference: boolean, numImages: number): void {
  if (hasReference && !wf.placeholders.has('image'))
    throw new UnsupportedParameterError(`comfyui workflow ${model} takes no reference image ({{image}})`);
  if (numImages > 1 && !wf.placeholders.has('batch_size'))
    throw new UnsupportedParameterError(`comfyui workflow ${model} makes one image ({{batch_size}} missing)`);
}

/** The graph with every placeholder replaced. */
export function fillWorkflow(
  graph: Record<string, unknown>,
  values: Record<string, string | number>,
): Record<string, unknown> {
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = /^\{\{(\w+)\}\}$/.exec(v);
      if (whole && whole[1] in values) return values[whole[1]];
      return v.replace(PLACEHOLDER, (m, name: string) => (name in values ? String(values[name]) : m));
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(graph) as Record<string, unknown>;
}

/** Latent sizes must be multiples of 8 (16 for most video models): 854 -> 848. */
function multipleOf16(n: number): number {
  return Math.max(16, Math.round(n / 16) * 16);
}
