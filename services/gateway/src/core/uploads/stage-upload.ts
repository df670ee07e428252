import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import { AppError } from '@mf/errors';
import type { Storage } from '@mf/storage';
import { ACCEPTED_UPLOADS, SNIFF_BYTES, sniffMediaType } from './sniff-media-type';

/** A file streamed into media storage, waiting for the editor to probe and record it. */
export interface StagedUpload {
  key: string;
  contentType: string;
  filename: string;
}

export const UNSUPPORTED_UPLOAD = `Unsupported media type: the file must be ${ACCEPTED_UPLOADS} (told by its content, not its name)`;
export const FILE_REQUIRED = 'file is required (multipart/form-data field "file")';
export const tooLarge = (maxBytes: number) => `The file is larger than ${maxBytes} bytes`;

/**
 * Reads a multipart/form-data request and streams its `file` field into media storage under
 * `uploads/`, never holding it whole in memory. The type is read from the first bytes; a file of
 * another type (415) or over `maxBytes` (413) leaves nothing stored. Other fields are ignored.
 */
export function stageUpload(
  req: Readable & { headers: IncomingHttpHeaders },
  storage: Storage,
  maxBytes: number,
): Promise<StagedUpload> {
  return new Promise<StagedUpload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes, fields: 20 } });
    } catch {
      reject(AppError.badRequest('the body is not valid multipart/form-data'));
      return;
    }
    let settled = false;
    let pending: Promise<StagedUpload> | null = null;
    const fail = (err: AppError) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume(); // drain the rest so the answer can be sent
      reject(err);
    };

    parser.on('file', (field, file, info) => {
      if (field !== 'file' || pending) {
        file.resume();
        return;
      }
      pending = stageFile(file, info.filename ?? '', storage, maxBytes);
      pending.catch((err: AppError) => fail(err));
    });
    parser.on('error', () => fail(AppError.badRequest('the body is not valid multipart/form-data')));
    parser.on('close', () => {
      if (settled) return;
      if (!pending) return fail(AppError.badRequest(FILE_REQUIRED));
      pending.then(
        (staged) => {
          settled = true;
          resolve(staged);
        },
        (err: AppError) => fail(err),
      );
    });
    req.pipe(parser);
  });
}

/** Sniffs the first bytes, then streams head and rest into storage; over the limit, the object is deleted. */
async function stageFile(
  file: Readable & { truncated?: boolean },
  filename: string,
  storage: Storage,
  maxBytes: number,
): Promise<StagedUpload> {
  const head = await readHead(file, SNIFF_BYTES);
  const type = sniffMediaType(head.bytes);
  if (!type) {
    file.resume();
    throw new AppError('unsupported_media_type', { error: UNSUPPORTED_UPLOAD });
  }
  const key = `uploads/${randomUUID()}.${type.ext}`;
  const body = new PassThrough();
  let overLimit = false;
  file.on('limit', () => {
    overLimit = true;
    body.destroy(new Error('upload over the size limit'));
  });
  body.write(head.bytes);
  if (head.ended) body.end();
  else file.pipe(body);
  try {
    await storage.put(key, body, type.contentType);
    if (overLimit || file.truncated) throw new Error('upload over the size limit');
  } catch (err) {
    file.resume();
    await storage.delete(key).catch(() => undefined);
    if (overLimit || file.truncated) throw new AppError('too_large', { error: tooLarge(maxBytes) });
    throw err;
  }
  return { key, contentType: type.contentType, filename };
}

/** The stream's first `n` bytes (fewer if it ends first); the stream is left paused after them. */
function readHead(stream: Readable, n: number): Promise<{ bytes: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const done = (ended: boolean) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', reject);
      stream.pause();
      resolve({ bytes: Buffer.concat(chunks), ended });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= n) done(false);
    };
    const onEnd = () => done(true);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', reject);
  });
}
