import { estimateRequest } from '@mf/contracts';
import { noStoreHeader, ok, op, ref, type Json } from './helpers';

/** POST /api/v1/estimate: a submit's price (its schemas derived from @mf/contracts api/estimate.ts). */
export const estimatePaths: Json = {
  '/api/v1/estimate': {
    post: op({
      id: 'estimateCost',
      summary: 'Price a generation without submitting it',
      tag: 'Generation',
      description:
        'The body of a video or image submit plus `model` (a catalog id). Validated exactly as the submit, with the same messages; answers what the submit would charge and whether the balance (and the key’s monthly spend limit, if set) covers it. Nothing is charged, no job is made.',
      body: estimateRequest,
      responses: { '200': ok('The price.', ref('EstimateReply'), noStoreHeader) },
    }),
  },
};
