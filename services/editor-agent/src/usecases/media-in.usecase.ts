import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { jobsRpc, type Asset, type ImportJobAssetRequest, type ImportUploadRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import type { ProbeResult } from '@mf/media';
import { assetView } from '../domain/records';
import { kindOf, storeAssetFile, TYPE_EXTENSIONS, withTempDir } from './assets.usecase';
import type { EditorContext } from './context';
import { requireProject } from './projects.usecase';

/** The content type of a job's stored result, told by its key's extension. */
function contentTypeOfKey(key: string, kind: 'image' | 'video'): string {
  const ext = path.extname(key).slice(1).toLowerCase();
  const found = Object.entries(TYPE_EXTENSIONS).find(([, e]) => e === ext || (ext === 'jpeg' && e === 'jpg'));
  return found ? found[0] : kind === 'video' ? 'video/mp4' : 'image/png';
}

/**
 * One of the user's own completed jobs' results as an asset: the jobs service (asked over the bus,
 * which answers 404 alike for a missing job and another user's) names the stored result, which is
 * copied from media storage, never downloaded; the project keeps its own copy because the job's
 * expires with the job (retention).
 */
export async function importJobAsset(ctx: EditorContext, req: ImportJobAssetRequest): Promise<{ asset: Asset }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  const result = await ctx.bus.rpc(jobsRpc, 'getResult', { user_id: req.user_id, job_id: req.job_id });
  if (result.status !== 'completed') {
    throw AppError.conflict(`Job ${req.job_id} is not completed (status: ${result.status})`);
  }
  const key = result.result_keys[req.index];
  if (key === undefined) {
    const count = result.result_keys.length;
    throw AppError.badRequest(
      `index ${req.index} is out of range: job ${req.job_id} has ${count} result${count === 1 ? '' : 's'} (index 0-${count - 1})`,
    );
  }
  const kind = result.type === 'video' ? 'video' : 'image';
  const contentType = contentTypeOfKey(key, kind);
  const row = await withTempDir(async (dir) => {
    const file = path.join(dir, `source.${TYPE_EXTENSIONS[contentType]}`);
    await pipeline(await ctx.storage.get(key), fs.createWriteStream(file));
    return storeAssetFile(ctx, {
      projectId: p.id,
      kind,
      source: 'import',
      file,
      contentType,
      metadata: { job_id: req.job_id, index: req.index },
    });
  });
  return { asset: assetView(row, ctx.settings.publicBaseUrl) };
}

/**
 * An upload the gateway streamed into media storage (its type already told by its bytes): probed
 * like an import and recorded (`source: "upload"`). The staged object is deleted either way.
 */
export async function importUpload(ctx: EditorContext, req: ImportUploadRequest): Promise<{ asset: Asset }> {
  try {
    const p = await requireProject(ctx, req.user_id, req.project_id);
    const row = await withTempDir(async (dir) => {
      const file = path.join(dir, `upload${path.extname(req.storage_key)}`);
      await pipeline(await ctx.storage.get(req.storage_key), fs.createWriteStream(file));
      let probed: ProbeResult;
      try {
        probed = await ctx.probe(file);
      } catch {
        throw AppError.badRequest('the file is not a readable image, video or audio file');
      }
      const kind = kindOf(probed);
      return storeAssetFile(ctx, {
        projectId: p.id,
        kind,
        source: 'upload',
        file,
        contentType: req.content_type,
        metadata: req.filename ? { filename: req.filename } : {},
      });
    });
    return { asset: assetView(row, ctx.settings.publicBaseUrl) };
  } finally {
    await ctx.storage
      .delete(req.storage_key)
      .catch((err: Error) =>
        ctx.logger.warn({ err: err.message, key: req.storage_key }, 'could not delete a staged upload'),
      );
  }
}
