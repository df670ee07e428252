import { randomInt } from 'node:crypto';
import { billingRpc, SEED_MAX } from '@mf/contracts';
import { assetView, type AssetRow } from '../domain/records';
import type { EditorContext } from '../usecases/context';
import { ONE_MEDIA_RULE } from './system-prompt';
import { ToolError } from './tool-args';
import { recordEvent, type TurnState } from './turn-state';

export interface ToolSuccess {
  /** One line for agent_events. */
  summary: string;
  /** What the model reads (as JSON). */
  result: Record<string, unknown>;
}

/** The one media generation of a turn: a second one is refused (the message goes to the model). */
export function claimMediaSlot(state: TurnState): void {
  if (state.mediaAttempted) throw new ToolError(ONE_MEDIA_RULE);
  state.mediaAttempted = true;
}

function mediaResult(state: TurnState, row: AssetRow, credits: number): Record<string, unknown> {
  const m = row.metadata;
  return {
    asset_id: row.id,
    kind: row.kind,
    url: assetView(row, state.ctx.settings.publicBaseUrl).url,
    ...(typeof m.width === 'number' ? { width: m.width, height: m.height } : {}),
    ...(typeof m.duration_sec === 'number' ? { duration_sec: m.duration_sec } : {}),
    credits_charged: credits,
    note: 'Added to the media library only. Use add_clip to place it on the timeline if the user wants it there.',
  };
}

export function delivered(state: TurnState, row: AssetRow, credits: number, jobId?: string): ToolSuccess {
  state.assetsCreated.push(row);
  state.mediaGenDone = true;
  recordEvent(state, 'media_generation', {
    kind: row.kind,
    asset_id: row.id,
    credits,
    ...(jobId ? { job_id: jobId } : {}),
  });
  return { summary: `${row.kind} ${row.id} (${credits} credits)`, result: mediaResult(state, row, credits) };
}

export const seed = (): number => randomInt(0, SEED_MAX + 1);

/**
 * Refunds a reference, logging instead of failing: billing applies a refund once, and one that
 * cannot be sent now is logged with its reference for an operator (the turn goes on).
 */
export async function refundQuietly(
  ctx: EditorContext,
  userId: number,
  reference: string,
  reason: string,
): Promise<void> {
  try {
    await ctx.bus.rpc(billingRpc, 'refund', { user_id: userId, reference, reason });
  } catch (err) {
    ctx.logger.error(
      { err: (err as Error).message, reference, userId },
      'REFUND NOT SENT: billing did not confirm a refund that is owed',
    );
  }
}
