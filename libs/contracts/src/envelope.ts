import Joi from 'joi';

/** Every message on the bus travels in this versioned envelope. */
export interface Envelope<T> {
  type: string;
  version: number;
  messageId: string;
  correlationId?: string;
  occurredAt: string;
  payload: T;
}

export const envelopeSchema = Joi.object({
  type: Joi.string().required(),
  version: Joi.number().integer().min(1).required(),
  messageId: Joi.string().required(),
  correlationId: Joi.string().optional(),
  occurredAt: Joi.string().isoDate().required(),
  payload: Joi.any().required(),
});
