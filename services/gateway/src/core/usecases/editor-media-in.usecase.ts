import type { Bus } from '@mf/bus';
import { JOB_ID } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { scopeOf } from '../../operations/table';
import { assertScope, type EditorCaller } from '../auth/auth-context';
import { validateImportAsset } from '../validation/editor.validators';
import { call, projectRef, type EditorCallOptions, type Reply } from './editor.usecase';
import { JOB_NOT_FOUND } from './job-reads';
import { valid } from './validated';

/**
 * Media into a project's library: a download from a public URL, a copy of one of the caller's
 * completed jobs' results, or an upload. editor-agent probes and records each.
 */

export async function importAsset(
  bus: Bus,
  auth: EditorCaller,
  projectId: unknown,
  body: unknown,
  opts: EditorCallOptions = {},
): Promise<Reply<'importAsset'>> {
  assertScope(auth, scopeOf('importAsset'));
  const project = projectRef(auth, projectId);
  const { url, job_id, index } = valid(validateImportAsset(body));
  if (job_id !== undefined) {
    // A job id that cannot exist gets the jobs service's own answer without asking it.
    if (!JOB_ID.test(job_id)) throw AppError.notFound(JOB_NOT_FOUND);
    return call(bus, 'importJobAsset', { ...project, job_id, index: index ?? 0 }, opts);
  }
  // The body's rule guarantees one of url and job_id.
  return call(bus, 'importAsset', { ...project, url: url as string }, opts);
}

/** What an upload route gives the use case: the file, staged into media storage. */
export interface StagedFile {
  key: string;
  contentType: string;
  filename: string;
}

/**
 * An uploaded file as an asset: the project is checked first (nothing is read or stored for a
 * project the caller cannot use), then `stage` streams the file into media storage, and
 * editor-agent probes and records it (deleting the staged copy).
 */
export async function uploadAsset(
  bus: Bus,
  auth: EditorCaller,
  projectId: unknown,
  stage: () => Promise<StagedFile>,
  opts: EditorCallOptions = {},
): Promise<Reply<'importUpload'>> {
  assertScope(auth, scopeOf('importAsset'));
  const project = projectRef(auth, projectId);
  await call(bus, 'getProject', project, opts);
  const staged = await stage();
  return call(
    bus,
    'importUpload',
    { ...project, storage_key: staged.key, content_type: staged.contentType, filename: staged.filename.slice(0, 255) },
    opts,
  );
}
