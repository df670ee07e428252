// `mediaforge webhook set|get|delete|rotate`: the calling key's webhook endpoint (PUT/GET/DELETE
// /api/v1/webhook, POST /api/v1/webhook/secret/rotate); the server checks every value.
import { checkFlags, didYouMean, int, str, UsageError, type Parsed } from './cli-args';
import type { WebhookDeliveries, SetWebhookParams } from './webhook-deliveries';

export const WEBHOOK_USAGE = `  webhook set <url> [--events job.completed,...] [--scheme stripe|standard]
                  create or change this key's endpoint (the secret is printed once, on creation)
  webhook get | webhook delete
  webhook rotate [--overlap-hours 24]
                  a new secret; the old one keeps signing beside it for the overlap (0-72 hours)`;

const ACTIONS = ['set', 'get', 'delete', 'rotate'] as const;

/** Runs one webhook action with `client.webhook` and resolves the API's answer. */
export async function webhookCommand(
  webhook: Pick<WebhookDeliveries, 'set' | 'get' | 'delete' | 'rotateSecret'>,
  p: Parsed,
): Promise<unknown> {
  const action = p.positional[1];
  switch (action) {
    case 'set': {
      checkFlags(p, ['events', 'scheme']);
      const url = p.positional[2];
      if (!url) throw new UsageError('webhook set <url>');
      const params: SetWebhookParams = { url };
      const events = str(p, 'events');
      if (events !== undefined) params.events = events.split(',') as SetWebhookParams['events'];
      const scheme = str(p, 'scheme');
      if (scheme !== undefined) params.signature_scheme = scheme as SetWebhookParams['signature_scheme'];
      return webhook.set(params);
    }
    case 'get':
      checkFlags(p, []);
      return webhook.get();
    case 'delete':
      checkFlags(p, []);
      return webhook.delete();
    case 'rotate':
      checkFlags(p, ['overlap-hours']);
      return webhook.rotateSecret(int(p, 'overlap-hours'));
    default:
      throw new UsageError(
        `webhook what? one of ${ACTIONS.join(', ')}${action ? didYouMean(action, [...ACTIONS]) : ''}`,
      );
  }
}
