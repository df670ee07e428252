import Joi from 'joi';
import type { ApiKeyRevokedPayload } from './generated/types';
import type { EventDef } from './job-events';
import { ROUTING_KEYS } from './names';
import { named } from './schema/rules';

export const apiKeyRevokedPayload = named(
  Joi.object({
    api_key_id: Joi.number().integer().min(1).required(),
    user_id: Joi.number().integer().min(1).required(),
  }),
  'ApiKeyRevokedPayload',
);

/**
 * Broadcast to every gateway replica when an API key is revoked, so each drops the key from its
 * short-lived key cache at once (not persisted anywhere: a replica that was disconnected clears
 * its whole cache when it reconnects).
 */
export const apiKeyRevoked: EventDef<ApiKeyRevokedPayload> = {
  routingKey: ROUTING_KEYS.apiKeyRevoked,
  version: 1,
  schema: apiKeyRevokedPayload as Joi.Schema<ApiKeyRevokedPayload>,
};
