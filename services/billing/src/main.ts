import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { loadBillingConfig } from './config';
import { serveBillingRpc } from './messaging/billing-rpc.server';

runMain('billing', loadBillingConfig, (config) => ({
  schema: 'billing',
  migrations,
  setup: async ({ bus, db }) => {
    await serveBillingRpc(bus, db, config.BILLING_RPC_PREFETCH);
  },
}));
