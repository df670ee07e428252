import { randomBytes } from 'node:crypto';
import type { MediaforgeClient } from './client';
import type { JobEvent, JobEventType } from './types';
import { signWebhook } from './webhooks';

export interface ListenOptions {
  forwardTo: string;
  /** Only these event types (default every job event). */
  events?: JobEventType[];
  /** The signing secret (default a fresh `whsec_...` for this session). */
  secret?: string;
  signal?: AbortSignal;
  /** Where the session's lines go (default stdout / stderr). */
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** A fresh session secret, printed at start so the local receiver can verify what it gets. */
export function sessionSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/** The body a forwarded event is POSTed with: the event as the log shows it. */
export function forwardedBody(e: JobEvent): string {
  return JSON.stringify({ id: e.id, type: e.type, job_id: e.data.job_id, data: e.data });
}

/**
 * `mediaforge listen --forward-to <url>`: follows the key owner's event stream and POSTs each event
 * to a local URL, signed like a webhook (X-Service-Signature with the session secret), printing one
 * line per event with the local answer's status. A dropped connection resumes with Last-Event-ID.
 * Runs until the signal aborts; returns how many events it forwarded.
 */
export async function listen(client: MediaforgeClient, opts: ListenOptions): Promise<number> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = opts.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const secret = opts.secret ?? sessionSecret();
  err(`Forwarding events to ${opts.forwardTo}. Signing secret for this session: ${secret}`);
  let forwarded = 0;
  for await (const e of client.events.stream({ signal: opts.signal, maxReconnects: Number.MAX_SAFE_INTEGER })) {
    if (opts.events && !opts.events.includes(e.type)) continue;
    const body = forwardedBody(e);
    const timestamp = Math.floor(Date.now() / 1000);
    let status: string;
    try {
      const res = await fetch(opts.forwardTo, {
        method: 'POST',
        body,
        signal: opts.signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'mediaforge-cli-listen',
          'x-service-event': e.type,
          'x-service-event-id': e.id ?? '',
          'x-service-timestamp': String(timestamp),
          'x-service-signature': signWebhook(secret, body, timestamp),
        },
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
