import Joi from 'joi';
import { eventDef } from './event-def';
import type * as T from './generated/types';
import { ROUTING_KEYS } from './names';
import { named } from './schema/rules';

const timestamp = Joi.string().isoDate().description('ISO 8601, UTC.');

/** One event of an instruct turn, as the reply's agent_events records it. */
export const agentEvent = named(
  Joi.object({
    type: Joi.string()
      .required()
      .description('step | tool_call | tool_result | tool_error | media_generation | message | error'),
    at: timestamp.required(),
  }).unknown(true),
  'AgentEvent',
);

/** The id a streamed turn's events travel under (the gateway makes one per streamed instruct). */
export const TURN_STREAM_ID = /^[A-Za-z0-9-]{8,64}$/;

/**
 * One event of a streamed instruct turn, as the editor publishes it for the gateway holding the
 * stream: an agent event as it is recorded (step, tool_call, tool_result, ...), or a generation
 * the turn started (`generation`, with `job_id`; its progress comes from the job's own events).
 */
export const turnStreamEvent = named(
  Joi.object({
    stream_id: Joi.string().pattern(TURN_STREAM_ID).required(),
    event: agentEvent.required(),
  }),
  'TurnStreamEvent',
);

export const turnStreamEventDef = eventDef<T.TurnStreamEvent>(ROUTING_KEYS.turnEvent, turnStreamEvent);
