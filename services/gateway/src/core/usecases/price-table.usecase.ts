import { MODELS, type CreditSpec, type FalEndpoints, type ImageCreditSpec } from '@mf/catalog';
import type { ModelListWithPrices, PriceRow } from '@mf/contracts';
import type { AuthContext } from '../auth/auth-context';
import { listModelsFor } from './list-models.usecase';

export const PRICE_RULE =
  'credits = credits_per_unit x duration_seconds for a video (at its resolution), x num_images for images; charged once when the job is submitted, refunded if it fails or is cancelled. The estimate endpoint (POST /api/v1/estimate) prices a request exactly.';

/** One row per model and video resolution (or per image model), from the catalog's own prices. */
export function priceTable(): PriceRow[] {
  return MODELS.flatMap((m): PriceRow[] => {
    if (m.type === 'image')
      return [
        { model: m.id, resolution: null, unit: 'image', credits_per_unit: (m.credits as ImageCreditSpec).per_image },
      ];
    const rates = (m.credits as CreditSpec).per_second_by_resolution;
    return (['720p', '480p'] as const).map((resolution) => ({
      model: m.id,
      resolution,
      unit: 'second',
      credits_per_unit: rates[resolution],
    }));
  });
}

/** MCP list_models: the catalog plus its price table (docs/mcp.md). */
export function listModelsWithPrices(auth: AuthContext, falEndpoints: FalEndpoints): ModelListWithPrices {
  const list = listModelsFor(auth, falEndpoints) as Pick<ModelListWithPrices, 'models'>;
  return { ...list, price_table: priceTable(), price_rule: PRICE_RULE };
}
