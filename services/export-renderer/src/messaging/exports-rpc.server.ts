import type { Bus } from '@mf/bus';
import { exportsRpc, renderProgressEvent } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import type { ExportContext } from '../usecases/context';
import { renderExport } from '../usecases/render-export.usecase';

/** Exports are heavy (several ffmpeg processes each): a replica takes about two at a time. */
export const EXPORT_PREFETCH = 2;

/** Binds the exports RPC to its use case; the caller's deadline caps the export's time. */
export function serveExportsRpc(bus: Bus, ctx: ExportContext): Promise<void> {
  return bus.serveRpc(
    exportsRpc,
    {
      render: (req, rpc) =>
        renderExport(ctx, req, {
          logger: rpc.logger,
          deadline: rpc.deadline,
          ...(req.export_id ? { onProgress: progressPublisher(bus, req.export_id, rpc.logger) } : {}),
        }),
    },
    { prefetch: EXPORT_PREFETCH },
  );
}

/**
 * Publishes a background export's percent for the editor replica waiting on the render (it records
 * export.progress). Best effort: a lost report only delays the next one.
 */
function progressPublisher(bus: Bus, exportId: string, logger: Logger): (percent: number) => void {
  return (progress) => {
    bus
      .publishEvent(renderProgressEvent, { export_id: exportId, progress })
      .catch((err: unknown) => logger.debug({ err }, 'export progress not published'));
  };
}
