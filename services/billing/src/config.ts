import { Joi, loadConfig, serviceEnv, type ServiceEnv } from '@mf/config';

export interface BillingConfig extends ServiceEnv {
  BILLING_RPC_PREFETCH: number;
}

const schema = Joi.object<BillingConfig>({
  ...serviceEnv(8081),
  /** RPC requests handled at once (each holds one pool connection at most). */
  BILLING_RPC_PREFETCH: Joi.number().integer().min(1).max(200).default(20),
});

export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env): BillingConfig {
  return loadConfig(schema, env);
}
