import path from 'node:path';
import type { ProviderJob } from '../provider';
import type { LocalProviderDeps } from './local-provider';
import { LOCAL_ERRORS, RenderFailure } from './render-failure';

/**
 * Downloads a request's reference images into its directory (ref-0, ref-1, ...). A cancel stops
 * waiting for them; a failed download is the client-safe `reference image could not be fetched`.
 */
export async function fetchReferences(
  fetchReference: LocalProviderDeps['fetchReference'],
  job: ProviderJob,
  dir: string,
  signal: AbortSignal,
): Promise<string[]> {
  const urls = job.type === 'video' ? (job.params.image_url ? [job.params.image_url] : []) : job.params.image_urls;
  // No extension: ffmpeg reads them with the image2 demuxer, which detects the image type.
  const files = urls.map((_, i) => path.join(dir, `ref-${i}`));
  // async: a fetchReference that throws synchronously still counts as a failed fetch.
  const fetches = Promise.all(urls.map(async (url, i) => fetchReference(url, files[i])));
  fetches.catch(() => undefined); // still settles after an abort; its failure no longer matters then
  // fetchReference takes no signal: a cancel stops waiting for it rather than waiting it out.
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    signal.throwIfAborted();
    await Promise.race([fetches, aborted]);
  } catch (cause) {
    if (signal.aborted) throw cause;
    throw new RenderFailure(LOCAL_ERRORS.fetch, { cause });
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return files;
}
