import type { Bus } from '@mf/bus';
import { renderProgressSchema, ROUTING_KEYS, type RenderProgress } from '@mf/contracts';

/**
 * The renderer's progress reports of the background exports this replica waits on: every replica
 * has a broker queue of its own (exclusive, deleted with the connection) bound to
 * exports.render.progress, and passes on the reports of its own exports only.
 */
export class RenderProgressListener {
  private readonly handlers = new Map<string, (progress: number) => void>();

  start(bus: Bus): Promise<void> {
    return bus.subscribe({
      bindings: [ROUTING_KEYS.renderProgress],
      handle: (_key, payload) => {
        const checked = renderProgressSchema.validate(payload);
        if (checked.error) return;
        const report = checked.value as RenderProgress;
        this.handlers.get(report.export_id)?.(report.progress);
      },
    });
  }

  /** Passes this export's reports to `handler` until the returned function is called. */
  listen(exportId: string, handler: (progress: number) => void): () => void {
    this.handlers.set(exportId, handler);
    return () => {
      this.handlers.delete(exportId);
    };
  }
}
