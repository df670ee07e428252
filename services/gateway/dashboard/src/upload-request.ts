import { answer, ApiError, BASE, requestHeaders } from './api.js';

/** Bytes of the request body sent so far, and how many there are in all. */
export type UploadProgress = (sent: number, total: number) => void;

/**
 * A multipart POST that reports its bytes as they go: fetch has no upload progress, so this one
 * call uses XMLHttpRequest. Headers and the reading of the answer (its JSON, its ApiError with the
 * server's message, a lost session) are the same as every other call's.
 */
export function postWithProgress<T>(path: string, form: FormData, onProgress: UploadProgress): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', BASE + path);
    for (const [name, value] of Object.entries(requestHeaders('POST', 'application/json')))
      xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    });
    xhr.addEventListener('load', () => {
      // A Response may not carry a body on 204 and its kind; the text is empty then anyway.
      const res = new Response(xhr.responseText === '' ? null : xhr.responseText, { status: xhr.status });
      answer<T>(res, path).then(resolve, reject);
    });
    const unreachable = () => reject(new ApiError(0, null));
    xhr.addEventListener('error', unreachable);
    xhr.addEventListener('abort', unreachable);
    xhr.addEventListener('timeout', unreachable);
    xhr.send(form);
  });
}
