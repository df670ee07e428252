import type { AgentEvent, ProjectAspectRatio } from '@mf/contracts';
import type { AppError } from '@mf/errors';
import type { AssetRow } from '../domain/records';
import type { EditorContext } from '../usecases/context';

/** What one instruct turn has done so far: the tools read and update it, the reply is built from it. */
export interface TurnState {
  ctx: EditorContext;
  turnId: string;
  userId: number;
  /** null: a turn of the dashboard session (no key, so no key limits). */
  apiKeyId: number | null;
  projectId: string;
  videoId: string;
  /** Epoch ms: no new model call after this (settings.agentMaxWallMs from the turn's start). */
  deadline: number;
  /** A media generation was attempted this turn (the one allowed), whether or not it delivered. */
  mediaAttempted: boolean;
  /** A media generation delivered an asset this turn. */
  mediaGenDone: boolean;
  assetsCreated: AssetRow[];
  /** Ids of clips added this turn, in order (the reply re-reads them: later edits move positions). */
  clipIdsCreated: string[];
  contextAppended: boolean;
  aspectRatioChanged: ProjectAspectRatio | null;
  events: AgentEvent[];
  /** A streamed turn: each event as it happens (agent events, and the generations it starts). */
  onEvent?: (event: AgentEvent) => void;
}

export function newTurnState(
  init: Pick<TurnState, 'ctx' | 'turnId' | 'userId' | 'apiKeyId' | 'projectId' | 'videoId' | 'deadline' | 'onEvent'>,
): TurnState {
  return {
    ...init,
    mediaAttempted: false,
    mediaGenDone: false,
    assetsCreated: [],
    clipIdsCreated: [],
    contextAppended: false,
    aspectRatioChanged: null,
    events: [],
  };
}

export function recordEvent(state: TurnState, type: string, fields: Record<string, unknown> = {}): void {
  const event = { type, at: new Date().toISOString(), ...fields };
  state.events.push(event);
  state.onEvent?.(event);
}

/** An event for a streamed turn only (not in the reply's agent_events, which stay as they are). */
export function streamEvent(state: TurnState, type: string, fields: Record<string, unknown> = {}): void {
  state.onEvent?.({ type, at: new Date().toISOString(), ...fields });
}

/**
 * An error that ends the whole turn with its status and body (a 402 from a media charge or a jobs
 * submit): the model is not asked to carry on without money.
 */
export class TurnAbort extends Error {
  constructor(readonly error: AppError) {
    super(error.message);
    this.name = 'TurnAbort';
  }
}
