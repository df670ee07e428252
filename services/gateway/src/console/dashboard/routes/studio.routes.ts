import { Router, type Request } from 'express';
import { SCOPES } from '@mf/contracts';
import { requestId } from '@mf/http';
import type { EditorCaller } from '../../../core/auth/auth-context';
import { stageUpload } from '../../../core/uploads/stage-upload';
import * as editor from '../../../core/usecases/editor.usecase';
import * as exportsOf from '../../../core/usecases/editor-exports.usecase';
import * as mediaIn from '../../../core/usecases/editor-media-in.usecase';
import { acceptsEventStream } from '../../../http/accepts-event-stream';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { reply } from '../reply';

/**
 * The signed-in user as an editor caller: every editor scope (the account is theirs), and no API
 * key, so a studio turn is billed to the user under no key (docs/decisions.md, "Studio turns").
 */
export function sessionCaller(req: Request): EditorCaller {
  return { userId: sessionOf(req).userId, apiKeyId: null, scopes: [...SCOPES] };
}

/**
 * The studio of the project page: the editor's write routes for the session, with the public API's
 * use cases, checks and messages (docs/editor-api.md); an export here always runs in the background.
 */
export function studioRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const { bus } = deps;
  const opts = (req: Request) => ({ correlationId: requestId(req) });

  router.post('/projects', async (req, res) => {
    reply(res, 'POST /projects', await editor.createProject(bus, sessionCaller(req), req.body, opts(req)));
  });

  router.post('/projects/:id/instruct', async (req, res) => {
    const caller = sessionCaller(req);
    if (!acceptsEventStream(req)) {
      const turn = await editor.instruct(bus, caller, req.params.id, req.body, {
        ...opts(req),
        timeoutMs: deps.studio.instructTimeoutMs,
      });
      reply(res, 'POST /projects/:id/instruct', turn);
      return;
    }
    await deps.studio.streamInstruct({
      req,
      res,
      auth: caller,
      projectId: req.params.id,
      correlationId: requestId(req),
    });
  });

  router.post('/projects/:id/clips', async (req, res) => {
    reply(
      res,
      'POST /projects/:id/clips',
      await editor.addClip(bus, sessionCaller(req), req.params.id, req.body, opts(req)),
    );
  });

  router.patch('/projects/:id/clips/:clipId', async (req, res) => {
    const caller = sessionCaller(req);
    const moved = await editor.moveClip(bus, caller, req.params.id, req.params.clipId, req.body, opts(req));
    reply(res, 'PATCH /projects/:id/clips/:clipId', moved);
  });

  router.delete('/projects/:id/clips/:clipId', async (req, res) => {
    const caller = sessionCaller(req);
    reply(
      res,
      'DELETE /projects/:id/clips/:clipId',
      await editor.removeClip(bus, caller, req.params.id, req.params.clipId, opts(req)),
    );
  });

  router.post('/projects/:id/assets', async (req, res) => {
    const caller = sessionCaller(req);
    const call = { ...opts(req), timeoutMs: deps.studio.importTimeoutMs };
    const added = req.is('multipart/form-data')
      ? await mediaIn.uploadAsset(
          bus,
          caller,
          req.params.id,
          () => stageUpload(req, deps.studio.storage, deps.studio.uploadMaxBytes),
          call,
        )
      : await mediaIn.importAsset(bus, caller, req.params.id, req.body, call);
    reply(res, 'POST /projects/:id/assets', added);
  });

  router.post('/projects/:id/export', async (req, res) => {
    const accepted = await exportsOf.startExport(bus, sessionCaller(req), req.params.id, req.body, opts(req));
    reply(res, 'POST /projects/:id/export', accepted, 202);
  });

  router.get('/projects/:id/exports', async (req, res) => {
    reply(
      res,
      'GET /projects/:id/exports',
      await exportsOf.listExports(bus, sessionCaller(req), req.params.id, opts(req)),
    );
  });

  router.get('/projects/:id/exports/:exportId', async (req, res) => {
    const caller = sessionCaller(req);
    reply(
      res,
      'GET /projects/:id/exports/:exportId',
      await exportsOf.getExport(bus, caller, req.params.id, req.params.exportId, opts(req)),
    );
  });

  return router;
}
