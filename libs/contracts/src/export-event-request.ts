import Joi from 'joi';
import { EXPORT_EVENT_TYPES, exportEventSchema } from './export-status';
import { named } from './schema/rules';

/** jobs' RPC that writes an export event into the user's event log. */
export const appendExportEventRequest = named(
  Joi.object({
    type: Joi.string()
      .valid(...EXPORT_EVENT_TYPES)
      .required(),
    payload: exportEventSchema.required(),
  }),
  'AppendExportEventRequest',
);

export const appendExportEventReply = named(
  Joi.object({ event_id: Joi.string().required() }),
  'AppendExportEventReply',
);
