/**
 * The pipeline baseline's middle hop, run as its own process: consume a durable RabbitMQ queue
 * (manual acks, prefetch BARE_PREFETCH, 20 like the dispatcher) and POST each message body to
 * BARE_TARGET_URL, acking after the answer. Nothing else: no database, no signing, no envelope.
 *
 * Env: AMQP_URL, BARE_QUEUE, BARE_TARGET_URL, BARE_PREFETCH. Prints {"ready":true} once consuming.
 */
import { amqp } from './deps';

async function main(): Promise<void> {
  const queue = process.env.BARE_QUEUE ?? 'bench.relay';
  const target = process.env.BARE_TARGET_URL;
  if (!target) throw new Error('BARE_TARGET_URL is required');
  const conn = await amqp.connect(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  const channel = await conn.createChannel();
  await channel.assertQueue(queue, { durable: true });
  await channel.prefetch(Number(process.env.BARE_PREFETCH ?? 20));
  await channel.consume(queue, (msg) => {
    if (!msg) return;
    fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: msg.content })
      .then((res) => res.arrayBuffer())
      .then(
        () => channel.ack(msg),
        () => channel.nack(msg, false, true),
      );
  });
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  process.on('SIGTERM', () => {
    void conn.close().finally(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
