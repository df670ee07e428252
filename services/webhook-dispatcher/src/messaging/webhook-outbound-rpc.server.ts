import type { Bus, RpcContext } from '@mf/bus';
import { webhookOutboundRpc } from '@mf/contracts';
import { AppError } from '@mf/errors';
import type { EndpointsContext } from '../usecases/context';
import { resendDelivery } from '../usecases/delivery-tools.usecase';
import { KeyedLimiter, NoSlotInTime } from '../usecases/keyed-limiter';
import { setEndpoint } from '../usecases/manage-endpoint.usecase';
import { sendTestEvent } from '../usecases/send-test-event.usecase';

export interface OutboundOptions {
  /** Test events and resends to one endpoint in flight at once, per replica (WEBHOOK_ENDPOINT_CONCURRENCY). */
  perEndpoint: number;
  /** One attempt's time limit (WEBHOOK_TIMEOUT_MS). */
  attemptTimeoutMs: number;
}

/** Time kept after an attempt's longest end for recording it and for the reply to reach the caller. */
export const REPLY_MARGIN_MS = 2000;

/**
 * Serves the calls that reach out to a customer's side while their caller waits: a URL's name
 * lookup on save, test events, resends. No prefetch limit: a request never waits behind another
 * tenant's. A test or resend waits only for its own endpoint's slots (the cap of its delivery lane,
 * apart from it, so a test is not stuck behind a backlog of deliveries), and one that cannot start
 * early enough to end before its caller's deadline is answered 503 without being sent: a call the
 * caller gave up on is never carried out.
 */
export function serveWebhookOutbound(bus: Bus, ctx: EndpointsContext, opts: OutboundOptions): Promise<void> {
  const slots = new KeyedLimiter(opts.perEndpoint);
  const inSlot = async <T>(apiKeyId: number, rpc: RpcContext, send: () => Promise<T>): Promise<T> => {
    try {
      return await slots.run(String(apiKeyId), rpc.deadline - opts.attemptTimeoutMs - REPLY_MARGIN_MS, send);
    } catch (err) {
      if (!(err instanceof NoSlotInTime)) throw err;
      rpc.logger.info({ apiKeyId }, 'webhook send refused: it could not start in time to answer its caller');
      throw AppError.unavailable();
    }
  };
  return bus.serveRpc(
    webhookOutboundRpc,
    {
      setEndpoint: (req) => setEndpoint(ctx, req),
      sendTest: (req, rpc) => inSlot(req.api_key_id, rpc, () => sendTestEvent(ctx, req)),
      resendDelivery: (req, rpc) => inSlot(req.api_key_id, rpc, () => resendDelivery(ctx, req)),
    },
    { prefetch: 0 },
  );
}
