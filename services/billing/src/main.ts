import { runMain } from '@mf/runtime';
import { migrations } from '../migrations';
import { countCredits, createBatchSizeHistogram, createCreditMetrics } from './billing-metrics';
import { loadBillingConfig } from './config';
import { serveBillingRpc, serveKeyLimitsRpc, serveReportsRpc } from './messaging/billing-rpc.server';
import { consumeJobEnds } from './messaging/job-ends.consumer';
import { GroupCommitter } from './usecases/group-commit';

runMain('billing', loadBillingConfig, (config, logger) => ({
  schema: 'billing',
  migrations,
  setup: async ({ bus, db, registry }) => {
    const batchSize = createBatchSizeHistogram(registry);
    const credits = createCreditMetrics(registry);
    const committer = new GroupCommitter(db, {
      maxBatch: config.BILLING_BATCH_MAX,
      maxInFlight: config.BILLING_BATCH_IN_FLIGHT,
      logger,
      onBatch: (size) => batchSize.observe(size),
      onEntries: (entries) => countCredits(credits, entries),
    });
    // No shutdown step of its own: the bus's close waits for in-flight requests, and so for their batches.
    await serveBillingRpc(bus, { db, committer }, config.BILLING_RPC_PREFETCH);
    await serveKeyLimitsRpc(bus, db, 10);
    await serveReportsRpc(bus, db, 4);
    await consumeJobEnds(bus, committer, config.BILLING_RPC_PREFETCH);
  },
}));
