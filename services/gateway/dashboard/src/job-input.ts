import { h } from './dom.js';
import type { Job } from './contracts.js';

// A job's accepted input (the API's `input`: defaults applied, the seed used) as the pages show
// it, who made the job, and the request that makes it again.

/** The public submit path of a job's type (the catalog's submit_endpoint). */
export const SUBMIT_PATHS: Record<Job['type'], string> = {
  video: '/api/v1/video/vidgen-2/generate',
  image: '/api/v1/image/imagegen/generate',
};

const LABELS: Record<string, string> = {
  prompt: 'Prompt',
  image_url: 'Reference image',
  image_urls: 'Reference images',
  fast: 'Fast model',
  duration_seconds: 'Duration',
  aspect_ratio: 'Aspect ratio',
  resolution: 'Resolution',
  generate_audio: 'Audio',
  num_images: 'Images',
  seed: 'Seed',
};

function shown(name: string, value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length ? value.map(String).join('\n') : 'none';
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value);
  return name === 'duration_seconds' ? `${text} s` : text;
}

/** [label, text] for every input field, in the API's order. */
export function inputEntries(input: Job['input'] | null | undefined): [string, string, string][] {
  if (!input || typeof input !== 'object') return [];
  return Object.entries(input).map(([name, value]): [string, string, string] => [
    LABELS[name] || name,
    shown(name, value),
    name,
  ]);
}

/** The prompt, for a card: the job's first line of identity. */
export function promptOf(job: { input?: Job['input'] | null } | null | undefined): string {
  return typeof job?.input?.prompt === 'string' ? job.input.prompt : '';
}

/** Who made the job, as a short tag: the editor (with its project), the playground, or nothing for a key's request. */
export function sourceTag(job: Pick<Job, 'source' | 'project_id'>): HTMLElement | null {
  if (job.source === 'editor') {
    return h(
      'span',
      { class: 'source-tag source-editor' },
      'Editor',
      job.project_id ? [' · ', h('a', { href: `#/projects/${encodeURIComponent(job.project_id)}` }, 'project')] : null,
    );
  }
  if (job.source === 'dashboard') return h('span', { class: 'source-tag source-dashboard' }, 'Playground');
  return null;
}

/** A single-quoted shell word: safe for any text (a quote becomes '\''). */
export function shellQuote(text: string): string {
  return `'${String(text).replace(/'/g, `'\\''`)}'`;
}

/**
 * The curl command that submits the same request again (the seed included, so the same media),
 * against this dashboard's own origin, with the key taken from $MEDIAFORGE_API_KEY.
 */
export function curlFor(job: Pick<Job, 'input' | 'type'>, origin: string = window.location.origin): string {
  const body = JSON.stringify(job.input);
  return [
    `curl -X POST ${shellQuote(`${origin}${SUBMIT_PATHS[job.type]}`)} \\`,
    '  -H "Authorization: Bearer $MEDIAFORGE_API_KEY" \\',
    "  -H 'Content-Type: application/json' \\",
    `  -d ${shellQuote(body)}`,
  ].join('\n');
}

/** A file name for a download: the text (a prompt, a project name) cut to a few words, safe on every OS. */
export function fileSafe(text: string | null | undefined, max = 48): string {
  const cleaned = String(text || '')
    // Control characters too: no file system wants them in a name.
    // eslint-disable-next-line no-control-regex
    .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .trim();
  return cleaned || 'mediaforge';
}

/** "2026-05-12 14-03": a local time stamp for file names (no colons: Windows refuses them). */
export function fileTimestamp(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}-${p(d.getMinutes())}`;
}

/** What a job's result downloads as: its prompt's first words and the job id (not "video.mp4"). */
export function resultFileName(
  job: Pick<Job, 'type' | 'job_id'> & { input?: Job['input'] | null },
  url: string,
  index: number,
  count: number,
): string {
  const ext = (/\.([a-z0-9]{2,4})(?:$|\?)/i.exec(url) || [])[1] || (job.type === 'video' ? 'mp4' : 'png');
  const part = count > 1 ? ` ${index + 1}` : '';
  return `${fileSafe(promptOf(job), 40)} ${job.job_id}${part}.${ext}`;
}
