import type { ResourceLink, TextContent } from '@modelcontextprotocol/sdk/types.js';

/** Media types by file extension (the URLs this deployment serves keep their media's extension). */
const MIME_BY_EXTENSION: Record<string, string> = {
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
};

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const isUrl = (v: unknown): v is string => typeof v === 'string' && /^https?:\/\//.test(v);

/**
 * The media URLs of one tool result: a job's result (video, images; also a waited generation's job), an export's video_url, an
 * asset's url. Lists (a page of jobs, a project's library) are left out: they are not a result
 * the call made.
 */
export function mediaUrls(value: object): string[] {
  const v = value as Record<string, unknown>;
  // A job (job_status), or the ended job of a generation that waited.
  const result = asRecord(v.result) ?? asRecord(asRecord(v.job)?.result);
  const images: unknown[] = Array.isArray(result?.images) ? (result.images as unknown[]) : [];
  const found: unknown[] = [result?.video, ...images, v.video_url, asRecord(v.asset)?.url];
  return [...new Set(found.filter(isUrl))];
}

function link(url: string): ResourceLink {
  const name = decodeURIComponent(new URL(url).pathname.split('/').pop() || 'media');
  const mimeType = MIME_BY_EXTENSION[name.split('.').pop()?.toLowerCase() ?? ''];
  return { type: 'resource_link', uri: url, name, ...(mimeType && { mimeType }) };
}

/**
 * The content items that carry a result's media: each as a `resource_link`, and the plain URLs
 * in a text item too (some clients show text only and drop resource links).
 */
export function mediaContent(value: object): (TextContent | ResourceLink)[] {
  const urls = mediaUrls(value);
  if (!urls.length) return [];
  return [{ type: 'text', text: `Media:\n${urls.join('\n')}` }, ...urls.map(link)];
}
