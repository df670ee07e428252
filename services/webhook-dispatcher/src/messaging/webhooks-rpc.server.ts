import type { Bus } from '@mf/bus';
import { webhooksRpc } from '@mf/contracts';
import type { EndpointsContext } from '../usecases/context';
import { getDelivery, recoverDeliveries, resendDelivery } from '../usecases/delivery-tools.usecase';
import { listDeliveries } from '../usecases/list-deliveries.usecase';
import { clearEndpoint, getEndpoint, setEndpoint } from '../usecases/manage-endpoint.usecase';
import { sendTestEvent } from '../usecases/send-test-event.usecase';

/** Binds the webhooks RPC methods to their use cases. */
export function serveWebhooksRpc(bus: Bus, ctx: EndpointsContext): Promise<void> {
  return bus.serveRpc(webhooksRpc, {
    setEndpoint: (req) => setEndpoint(ctx, req),
    clearEndpoint: (req) => clearEndpoint(ctx, req),
    getEndpoint: (req) => getEndpoint(ctx, req),
    listDeliveries: (req) => listDeliveries(ctx.db, req),
    sendTest: (req) => sendTestEvent(ctx, req),
    getDelivery: (req) => getDelivery(ctx, req),
    resendDelivery: (req) => resendDelivery(ctx, req),
    recover: (req) => recoverDeliveries(ctx, req),
  });
}
