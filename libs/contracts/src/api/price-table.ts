import Joi from 'joi';
import { named } from '../schema/rules';
import { modelList } from './responses';
import { MODEL_IDS } from './model-ids';

/**
 * The MCP list_models output: the catalog (as GET /api/v1/models) plus a flat price table, so an
 * agent can price a generate_media call without a tool of its own (the contract fixes the 17 tools).
 */
export const priceRow = named(
  Joi.object({
    model: Joi.string()
      .valid(...MODEL_IDS)
      .required(),
    resolution: Joi.string()
      .valid('480p', '720p')
      .allow(null)
      .required()
      .description('Video: the resolution this rate is for; null for images.'),
    unit: Joi.string().valid('second', 'image').required().description('What one credits_per_unit pays for.'),
    credits_per_unit: Joi.number().integer().min(0).required(),
  }),
  'PriceRow',
);

export const modelListWithPrices = named(
  modelList.keys({
    price_table: Joi.array().items(priceRow).required(),
    price_rule: Joi.string()
      .required()
      .description('How a job is priced from the table: charged once when submitted, refunded if it fails.'),
  }),
  'ModelListWithPrices',
);
