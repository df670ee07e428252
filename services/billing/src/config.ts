import { Joi, loadConfig, serviceEnv, type ServiceEnv } from '@mf/config';

export interface BillingConfig extends ServiceEnv {
  BILLING_RPC_PREFETCH: number;
  BILLING_BATCH_MAX: number;
  BILLING_BATCH_IN_FLIGHT: number;
}

export const billingConfigSchema = Joi.object<BillingConfig>({
  ...serviceEnv(8081),
  /** RPC requests handled at once; concurrent charges and refunds among them share a transaction. */
  BILLING_RPC_PREFETCH: Joi.number().integer().min(1).max(1000).default(100),
  /** Most charges and refunds committed in one transaction. */
  BILLING_BATCH_MAX: Joi.number().integer().min(1).max(1000).default(100),
  /**
   * Most batches in flight at once: the next starts as soon as the previous holds its locks. At most
   * the database pool's size (10), less a connection for grants and key-limit RPCs. 1 by default:
   * on one hot user (the billing and submit benches) pipelining only made batches smaller.
   */
  BILLING_BATCH_IN_FLIGHT: Joi.number().integer().min(1).max(9).default(1),
});

export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env): BillingConfig {
  return loadConfig(billingConfigSchema, env);
}
