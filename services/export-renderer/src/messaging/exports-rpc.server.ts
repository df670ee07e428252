import type { Bus } from '@mf/bus';
import { exportsRpc } from '@mf/contracts';
import type { ExportContext } from '../usecases/context';
import { renderExport } from '../usecases/render-export.usecase';

/** Exports are heavy (several ffmpeg processes each): a replica takes about two at a time. */
export const EXPORT_PREFETCH = 2;

/** Binds the exports RPC to its use case; the caller's deadline caps the export's time. */
export function serveExportsRpc(bus: Bus, ctx: ExportContext): Promise<void> {
  return bus.serveRpc(
    exportsRpc,
    { render: (req, rpc) => renderExport(ctx, req, { logger: rpc.logger, deadline: rpc.deadline }) },
    { prefetch: EXPORT_PREFETCH },
  );
}
