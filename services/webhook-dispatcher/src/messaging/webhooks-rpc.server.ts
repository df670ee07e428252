import type { Bus } from '@mf/bus';
import { webhooksRpc } from '@mf/contracts';
import type { EndpointsContext } from '../usecases/context';
import { getDelivery, recoverDeliveries } from '../usecases/delivery-tools.usecase';
import { listDeliveries } from '../usecases/list-deliveries.usecase';
import { clearEndpoint, getEndpoint, rotateSecret } from '../usecases/manage-endpoint.usecase';

/**
 * Binds the webhooks RPC methods to their use cases: database work only (recover queues into the
 * lanes), so reads never wait behind a call out to a customer (webhook-outbound-rpc.server.ts).
 */
export function serveWebhooksRpc(bus: Bus, ctx: EndpointsContext): Promise<void> {
  return bus.serveRpc(webhooksRpc, {
    clearEndpoint: (req) => clearEndpoint(ctx, req),
    getEndpoint: (req) => getEndpoint(ctx, req),
    listDeliveries: (req) => listDeliveries(ctx.db, req),
    getDelivery: (req) => getDelivery(ctx, req),
    recover: (req) => recoverDeliveries(ctx, req),
    rotateSecret: (req) => rotateSecret(ctx, req),
  });
}
