import type { Bus } from '@mf/bus';
import { editorRpc } from '@mf/contracts';
import { deleteAsset, importAsset } from '../usecases/assets.usecase';
import { importJobAsset, importUpload } from '../usecases/media-in.usecase';
import { addClip, moveClip, removeClip } from '../usecases/clips.usecase';
import type { EditorContext } from '../usecases/context';
import { getExport, listExports, startExport } from '../usecases/background-export.usecase';
import { exportVideo } from '../usecases/export.usecase';
import { instruct } from '../usecases/instruct.usecase';
import { projectThreads } from '../usecases/threads.usecase';
import {
  createProject,
  createVideo,
  getProjectState,
  listProjects,
  rename,
  setAspectRatio,
  updateContext,
} from '../usecases/projects.usecase';

/** Binds the editor's RPC methods to their use cases. */
export function serveEditorRpc(bus: Bus, ctx: EditorContext): Promise<void> {
  return bus.serveRpc(editorRpc, {
    createProject: (req) => createProject(ctx, req),
    listProjects: (req) => listProjects(ctx, req.user_id),
    getProject: (req) => getProjectState(ctx, req),
    instruct: (req) => instruct(ctx, req),
    createVideo: (req) => createVideo(ctx, req),
    rename: (req) => rename(ctx, req),
    importAsset: (req) => importAsset(ctx, req),
    importJobAsset: (req) => importJobAsset(ctx, req),
    importUpload: (req) => importUpload(ctx, req),
    deleteAsset: (req) => deleteAsset(ctx, req),
    addClip: (req) => addClip(ctx, req),
    moveClip: (req) => moveClip(ctx, req),
    removeClip: (req) => removeClip(ctx, req),
    updateContext: (req) => updateContext(ctx, req),
    setAspectRatio: (req) => setAspectRatio(ctx, req),
    threads: (req) => projectThreads(ctx, req),
    export: (req) => exportVideo(ctx, req),
    startExport: (req) => startExport(ctx, req),
    getExport: (req) => getExport(ctx, req),
    listExports: (req) => listExports(ctx, req),
  });
}
