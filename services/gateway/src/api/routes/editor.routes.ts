import { Router, type Request } from 'express';
import type { Bus } from '@mf/bus';
import { requestId } from '@mf/http';
import { authOf } from '../../http/auth.middleware';
import * as editor from '../../core/usecases/editor.usecase';

// The dashboard's project routes share the id rule and messages.
export { NOT_FOUND, PROJECT_ID } from '../../core/usecases/editor.usecase';

export interface EditorRouteOptions {
  /** How long an instruct call may wait for the agent's turn (turns last minutes). */
  instructTimeoutMs: number;
  /** How long an export may take (encoding and upload; the renderer has its own limit). */
  exportTimeoutMs: number;
}

/** A path parameter; express types them string | string[] for wildcards, which these routes do not use. */
function param(req: Request, name: string): string {
  const v = req.params[name];
  return typeof v === 'string' ? v : '';
}

/**
 * The video editor: the contract's create, list, get, instruct and export, and the direct edits
 * (REST twins of the editor's MCP tools). Each route maps the request onto its use case
 * (usecases/editor.usecase.ts), which checks, calls editor-agent and returns its reply as is.
 */
export function editorRoutes(bus: Bus, opts: EditorRouteOptions): Router {
  const router = Router();
  const base = (req: Request): editor.EditorCallOptions => ({ correlationId: requestId(req) });
  const id = (req: Request) => param(req, 'id');

  router.post('/media-studio/projects', async (req, res) => {
    res.json(await editor.createProject(bus, authOf(req), req.body, base(req)));
  });

  router.get('/media-studio/projects', async (req, res) => {
    const reply = await editor.listProjects(bus, authOf(req), base(req));
    res.setHeader('Cache-Control', 'no-store');
    res.json(reply);
  });

  router.get('/media-studio/projects/:id', async (req, res) => {
    const reply = await editor.getProjectState(bus, authOf(req), id(req), req.query, base(req));
    res.setHeader('Cache-Control', 'no-store');
    res.json(reply);
  });

  router.post('/media-studio/projects/:id/instruct', async (req, res) => {
    res.json(
      await editor.instruct(bus, authOf(req), id(req), req.body, { ...base(req), timeoutMs: opts.instructTimeoutMs }),
    );
  });

  router.post('/media-studio/projects/:id/export', async (req, res) => {
    res.json(
      await editor.exportVideo(bus, authOf(req), id(req), req.body, { ...base(req), timeoutMs: opts.exportTimeoutMs }),
    );
  });

  // Direct edits.

  router.patch('/media-studio/projects/:id', async (req, res) => {
    res.json(await editor.renameProject(bus, authOf(req), id(req), req.body, base(req)));
  });

  router.post('/media-studio/projects/:id/videos', async (req, res) => {
    res.json(await editor.createVideo(bus, authOf(req), id(req), req.body, base(req)));
  });

  router.patch('/media-studio/projects/:id/videos/:videoId', async (req, res) => {
    res.json(await editor.renameVideo(bus, authOf(req), id(req), param(req, 'videoId'), req.body, base(req)));
  });

  router.post('/media-studio/projects/:id/assets', async (req, res) => {
    res.json(await editor.importAsset(bus, authOf(req), id(req), req.body, base(req)));
  });

  router.delete('/media-studio/projects/:id/assets/:assetId', async (req, res) => {
    res.json(await editor.deleteAsset(bus, authOf(req), id(req), param(req, 'assetId'), base(req)));
  });

  router.post('/media-studio/projects/:id/clips', async (req, res) => {
    res.json(await editor.addClip(bus, authOf(req), id(req), req.body, base(req)));
  });

  router.patch('/media-studio/projects/:id/clips/:clipId', async (req, res) => {
    res.json(await editor.moveClip(bus, authOf(req), id(req), param(req, 'clipId'), req.body, base(req)));
  });

  router.delete('/media-studio/projects/:id/clips/:clipId', async (req, res) => {
    res.json(await editor.removeClip(bus, authOf(req), id(req), param(req, 'clipId'), base(req)));
  });

  router.put('/media-studio/projects/:id/context', async (req, res) => {
    res.json(await editor.updateContext(bus, authOf(req), id(req), req.body, base(req)));
  });

  router.put('/media-studio/projects/:id/aspect-ratio', async (req, res) => {
    res.json(await editor.setAspectRatio(bus, authOf(req), id(req), req.body, base(req)));
  });

  return router;
}
