import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { field } from '../http';

/**
 * fal's webhook signatures (https://docs.fal.ai/model-apis/model-endpoints/webhooks): ED25519 over
 * `<request id>\n<user id>\n<timestamp>\n<hex SHA-256 of the raw body>`, the signature in hex,
 * checked against any key of fal's published JWKS.
 */
export const FAL_WEBHOOK_HEADERS = [
  'x-fal-webhook-request-id',
  'x-fal-webhook-user-id',
  'x-fal-webhook-timestamp',
  'x-fal-webhook-signature',
] as const;

export const DEFAULT_FAL_JWKS_URL = 'https://rest.alpha.fal.ai/.well-known/jwks.json';

/** How far a timestamp may be from our clock (replayed or delayed deliveries beyond it are refused). */
export const FAL_TOLERANCE_SECONDS = 5 * 60;
/** fal's keys are cached this long; an unknown signature refreshes them at most once a minute. */
const KEYS_TTL_MS = 24 * 3_600_000;
const REFRESH_GAP_MS = 60_000;

/** The content fal signs. */
export function falSignedContent(requestId: string, userId: string, timestamp: string, body: string): Buffer {
  const digest = createHash('sha256').update(body).digest('hex');
  return Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`, 'utf8');
}

/** Whether the headers sign `body` with one of `keys`, within the tolerance of `nowSeconds`. */
export function verifyFalWebhook(
  keys: readonly KeyObject[],
  headers: Record<string, string | undefined>,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const [requestId, userId, timestamp, signature] = FAL_WEBHOOK_HEADERS.map((h) => headers[h]);
  if (!requestId || !userId || !timestamp || !signature) return false;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > FAL_TOLERANCE_SECONDS) return false;
  if (!/^[0-9a-f]{128}$/i.test(signature)) return false;
  const content = falSignedContent(requestId, userId, timestamp, body);
  const sig = Buffer.from(signature, 'hex');
  return keys.some((key) => verify(null, content, key, sig));
}

/** The ED25519 public keys of a JWKS document (others are skipped). */
export function keysOfJwks(doc: unknown): KeyObject[] {
  const keys = field(doc, 'keys');
  if (!Array.isArray(keys)) return [];
  const out: KeyObject[] = [];
  for (const k of keys) {
    if (field(k, 'kty') !== 'OKP' || field(k, 'crv') !== 'Ed25519' || typeof field(k, 'x') !== 'string') continue;
    try {
      out.push(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: field(k, 'x') as string }, format: 'jwk' }));
    } catch {
      // A malformed key is no key.
    }
  }
  return out;
}

/**
 * fal's signing keys, fetched on first use and kept a day; concurrent callers share one fetch. A
 * failed fetch leaves the keys empty (callbacks are then used as nudges only) until the next try.
 */
export class FalWebhookKeys {
  private keys: KeyObject[] = [];
  private fetchedAt = -Infinity;
  private pending?: Promise<KeyObject[]>;

  constructor(private readonly fetchJwks: () => Promise<unknown>) {}

  /** The keys, fetched again when a day old, or on `refresh` (they did not verify; at most once a minute). */
  async get(refresh = false): Promise<KeyObject[]> {
    const age = Date.now() - this.fetchedAt;
    if (age < KEYS_TTL_MS && !(refresh && age > REFRESH_GAP_MS)) return this.keys;
    this.pending ??= this.fetchJwks()
      .then(keysOfJwks, () => [] as KeyObject[])
      .then((keys) => {
        // No keys (fal unreachable, a bad answer): the old ones stay, and the next try is in a minute.
        this.fetchedAt = keys.length > 0 ? Date.now() : Date.now() - KEYS_TTL_MS + REFRESH_GAP_MS;
        if (keys.length > 0) this.keys = keys;
        return this.keys;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }
}
