import { randomBytes } from 'node:crypto';
import type { MediaforgeClient } from './client';
import { WEBHOOK_USER_AGENT } from './generated/contract-values';
import { isJobEvent, type JobEvent, type JobEventType } from './types';
import { signStandardWebhook, signWebhook } from './webhooks';

/** What a webhook endpoint receives; `listen` forwards these unless `--events` says otherwise. */
export const DELIVERED_EVENT_TYPES: readonly JobEventType[] = ['job.completed', 'job.failed', 'job.cancelled'];
/** Sent to `listen` only (never to a webhook endpoint), when `--events` names them. */
export const LISTEN_ONLY_EVENT_TYPES: readonly JobEventType[] = ['job.processing', 'job.progress'];

/** How an endpoint signs its deliveries: `stripe` (X-Service-Signature) or `standard` (Standard Webhooks). */
export const LISTEN_SIGNATURE_SCHEMES = ['stripe', 'standard'] as const;
export type ListenSignatureScheme = (typeof LISTEN_SIGNATURE_SCHEMES)[number];

export interface ListenOptions {
  forwardTo: string;
  /** Only these event types (default the three a webhook endpoint receives). */
  events?: JobEventType[];
  /** The signing secret (default a fresh `whsec_...` for this session). */
  secret?: string;
  /** Sign as an endpoint of this scheme does (default `stripe`). */
  scheme?: ListenSignatureScheme;
  signal?: AbortSignal;
  /** Where the session's lines go (default stdout / stderr). */
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/**
 * A fresh session secret, printed at start so the local receiver can verify what it gets. Standard
 * Webhooks libraries decode what follows `whsec_` as standard base64, so that scheme's is written so.
 */
export function sessionSecret(scheme: ListenSignatureScheme = 'stripe'): string {
  return `whsec_${randomBytes(24).toString(scheme === 'standard' ? 'base64' : 'base64url')}`;
}

/** The event id just before this one (ids are `evt_` and 16 digits that sort): a log page after it starts at this event. */
function previousEventId(id: string): string {
  return `evt_${String(Number(id.slice(4)) - 1).padStart(16, '0')}`;
}

/** What a forwarded event is POSTed with: the body, and whether it is a test (`X-Service-Test: true`). */
export interface Forwarded {
  body: string;
  test: boolean;
}

/**
 * The body a forwarded event is POSTed with. A terminal event: the exact body of its webhook
 * delivery, as the event log holds it (built there by the delivery's own builder), and whether the
 * log marks it as a test (`mediaforge trigger`). A listen-only event (processing, progress): the
 * Job object as the stream shows it.
 */
export async function forwardedBody(client: MediaforgeClient, e: JobEvent, signal?: AbortSignal): Promise<Forwarded> {
  if (!DELIVERED_EVENT_TYPES.includes(e.type)) return { body: JSON.stringify(e.data), test: false };
  if (!e.id) throw new Error('the event has no id');
  const page = await client.events.list({ after: previousEventId(e.id), limit: 1 }, { signal });
  const logged = page.events[0];
  if (!logged || logged.id !== e.id || logged.webhook_body === undefined)
    throw new Error(`event ${e.id} has no webhook body in the event log`);
  return { body: logged.webhook_body, test: logged.test === true };
}

/**
 * The headers of a delivery (the dispatcher's), signed with the session secret in the endpoint's
 * scheme: `stripe` adds X-Service-Timestamp and X-Service-Signature, `standard` the `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` of Standard Webhooks in their place. A test event
 * carries `X-Service-Test: true`, as its delivery does.
 */
export function forwardedHeaders(
  e: JobEvent,
  body: string,
  secret: string,
  timestamp: number,
  scheme: ListenSignatureScheme = 'stripe',
  test = false,
): Record<string, string> {
  const eventId = e.id ?? '';
  const signature: Record<string, string> =
    scheme === 'standard'
      ? {
          'webhook-id': eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signStandardWebhook(secret, eventId, body, timestamp),
        }
      : { 'X-Service-Timestamp': String(timestamp), 'X-Service-Signature': signWebhook(secret, body, timestamp) };
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'X-Service-Event': e.type,
    ...signature,
    'X-Service-Event-Id': eventId,
    'X-Service-Delivery-Attempt': '1',
    ...(test ? { 'X-Service-Test': 'true' } : {}),
  };
}

/**
 * `mediaforge listen --forward-to <url>`: follows the key owner's event stream and POSTs each event
 * to a local URL exactly as a webhook delivery of it is sent (same body and headers), signed with the
 * session secret, printing one line per event with the local answer's status. A dropped connection
 * resumes with Last-Event-ID. Runs until the signal aborts; returns how many events it forwarded.
 */
export async function listen(client: MediaforgeClient, opts: ListenOptions): Promise<number> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = opts.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const scheme = opts.scheme ?? 'stripe';
  const secret = opts.secret ?? sessionSecret(scheme);
  const types = opts.events ?? DELIVERED_EVENT_TYPES;
  err(`Forwarding events to ${opts.forwardTo}. Signing secret for this session: ${secret}`);
  let forwarded = 0;
  for await (const e of client.events.stream({ signal: opts.signal, maxReconnects: Number.MAX_SAFE_INTEGER })) {
    if (!isJobEvent(e) || !types.includes(e.type)) continue;
    let status: string;
    try {
      const { body, test } = await forwardedBody(client, e, opts.signal);
      const res = await fetch(opts.forwardTo, {
        method: 'POST',
        body,
        signal: opts.signal,
        headers: forwardedHeaders(e, body, secret, Math.floor(Date.now() / 1000), scheme, test),
      });
      status = String(res.status);
      await res.arrayBuffer().catch(() => undefined);
    } catch (cause) {
      if (opts.signal?.aborted) break;
      status = `failed (${(cause as Error).message})`;
    }
    forwarded++;
    out(`${new Date().toISOString()} ${e.type} ${e.data.job_id} ${e.id ?? '-'} -> ${status}`);
  }
  return forwarded;
}
