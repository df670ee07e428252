import type { Channel, ConsumeMessage } from 'amqplib';
import type { AnyRpcMethod, Envelope, RpcReplyBody } from '@mf/contracts';
import { AppError, httpStatusOf, isAppError, toWire } from '@mf/errors';
import { decode, encode } from './codec';
import { closeCancelled, type Attach } from './connection';
import { safeAck, type DeliveryDeps } from './deliveries';
import { durableQueue } from './topology';
import type { AnyRpcService, RpcContext, RpcHandlers } from './types';

/**
 * Serves a service's RPC queue. Every request is validated against the contract schema before its
 * handler sees it, answered on its reply-to (a typed AppError as itself, anything else as a bare
 * 500), and acked; one past its caller's deadline is dropped unanswered.
 */
export function rpcServer<S extends AnyRpcService>(
  service: S,
  handlers: RpcHandlers<S>,
  opts: { prefetch?: number },
  deps: DeliveryDeps,
): Attach {
  const byType = new Map<string, { key: string; def: AnyRpcMethod }>();
  for (const [key, def] of Object.entries(service.methods)) byType.set(def.type, { key, def });
  const queue = service.queue;

  /** Runs the request's handler; the reply to send, or null for a request past its deadline. */
  const handle = async (msg: ConsumeMessage): Promise<RpcReplyBody<unknown> | null> => {
    const correlationId = msg.properties.correlationId as string;
    const logger = deps.logger.child({ correlationId, queue });
    const deadline = Number(msg.properties.headers?.['x-deadline'] ?? Infinity);
    let type = 'unknown';
    let outcome = 'ok';
    try {
      if (Date.now() > deadline) {
        // The caller gave up already; acting now could, e.g., charge for a request that failed.
        outcome = 'expired';
        logger.warn({ type: msg.properties.type }, 'dropping RPC request past its deadline');
        return null;
      }
      const env = decode(msg.content) as Envelope<unknown>;
      type = env.type;
      const entry = byType.get(env.type);
      if (!entry) throw new Error(`unknown RPC type ${env.type}`);
      const checked = entry.def.request.validate(env.payload, { abortEarly: true, convert: false });
      if (checked.error) throw new Error(`invalid ${env.type} request: ${checked.error.message}`);
      const handler = handlers[entry.key as keyof RpcHandlers<S>] as (
        req: unknown,
        ctx: RpcContext,
      ) => Promise<unknown>;
      const result = await handler(checked.value, {
        logger,
        correlationId: env.correlationId ?? correlationId,
        deadline,
      });
      return { ok: true, result };
    } catch (err) {
      if (isAppError(err)) {
        outcome = `status_${httpStatusOf(err.kind)}`;
        return { ok: false, error: toWire(err) };
      }
      outcome = 'error';
      logger.error({ err, type }, 'RPC handler failed');
      return { ok: false, error: toWire(AppError.internal()) };
    } finally {
      deps.handled.inc({ queue, type, outcome });
    }
  };

  /**
   * Acks the request before replying: whatever the reply meets on the broker (a caller that is
   * gone, a channel that fails), the request is done and is not delivered again to be answered
   * again. Replying first gained nothing: a reply lost either way leaves the caller to time out.
   */
  const onMessage = async (channel: Channel, msg: ConsumeMessage): Promise<void> => {
    let reply: RpcReplyBody<unknown> | null = null;
    try {
      reply = await handle(msg);
    } finally {
      safeAck(channel, msg);
    }
    const replyTo = msg.properties.replyTo as string | undefined;
    if (!reply || !replyTo) return;
    try {
      channel.sendToQueue(replyTo, encode(reply), {
        correlationId: msg.properties.correlationId as string,
        contentType: 'application/json',
      });
    } catch (err) {
      deps.log.warn({ err: (err as Error).message, queue }, 'could not send an RPC reply: its channel is closed');
    }
  };

  return async (conn) => {
    const channel = await conn.createChannel();
    channel.on('error', (err: Error) => deps.log.warn({ err: err.message, queue }, 'rpc server channel error'));
    // No dead-letter exchange: every request is answered and acked, and one that expires in the
    // queue (its caller gave up) should vanish, not pile up in a DLQ.
    await channel.assertQueue(queue, durableQueue(deps.quorumQueues));
    await channel.prefetch(opts.prefetch ?? 20);
    const { consumerTag } = await channel.consume(queue, (msg) => {
      if (!msg) return closeCancelled(channel, deps.log, queue);
      deps.deliveries.track(onMessage(channel, msg));
    });
    deps.deliveries.consuming(channel, consumerTag);
    return channel;
  };
}
