import { Router } from 'express';
import type { Bus } from '@mf/bus';
import { requestId } from '@mf/http';
import type { Storage } from '@mf/storage';
import { authOf } from '../../http/auth.middleware';
import { stageUpload } from '../../core/uploads/stage-upload';
import * as editor from '../../core/usecases/editor.usecase';

export interface UploadRouteOptions {
  storage: Storage;
  /** IMPORT_MAX_BYTES: the largest file accepted (413 past it). */
  maxBytes: number;
}

/**
 * POST /media-studio/projects/:id/assets with a multipart/form-data body: an upload. Mounted
 * before the JSON body parser (which refuses other types); a JSON body passes through to the
 * import route.
 */
export function editorUploadRoutes(bus: Bus, opts: UploadRouteOptions): Router {
  const router = Router();
  router.post('/media-studio/projects/:id/assets', async (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    const projectId = typeof req.params.id === 'string' ? req.params.id : '';
    res.json(
      await editor.uploadAsset(bus, authOf(req), projectId, () => stageUpload(req, opts.storage, opts.maxBytes), {
        correlationId: requestId(req),
      }),
    );
  });
  return router;
}
