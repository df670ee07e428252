import type { Bus } from '@mf/bus';
import { apiKeyRevoked, apiKeyRevokedPayload, type ApiKeyRevokedPayload } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import type { KeyCache } from './key-cache';

/** Tells every gateway replica's key cache that a key is revoked. */
export interface KeyRevocations {
  /**
   * Drops the key from this replica's cache (at once, before anything else) and publishes the
   * revocation for the other replicas; resolves once the broker has taken it. False (logged) when
   * it could not: the other replicas then forget the key within their cache's TTL.
   */
  announce(key: { id: number; user_id: number }): Promise<boolean>;
}

export interface KeyRevocationDeps {
  /** The broker (the admin CLI connects only when it needs to). */
  bus: () => Promise<Bus>;
  /** This process's own cache, if it has one (the gateway does, the admin CLI does not). */
  cache?: KeyCache;
  /** What else this process holds for the key (its open event streams), dropped at once too. */
  onRevoked?: (apiKeyId: number) => void;
  logger: Logger;
}

export function keyRevocations(deps: KeyRevocationDeps): KeyRevocations {
  return {
    async announce(key) {
      deps.cache?.evictKey(key.id);
      deps.onRevoked?.(key.id);
      try {
        const bus = await deps.bus();
        await bus.publishEvent(apiKeyRevoked, { api_key_id: key.id, user_id: key.user_id });
        return true;
      } catch (err) {
        deps.logger.warn(
          { err: (err as Error).message, api_key_id: key.id },
          'API key revoked, but the revocation could not be broadcast: other gateway replicas may accept it until their key cache expires',
        );
        return false;
      }
    },
  };
}

/**
 * Keeps this replica's key cache in step with revocations made anywhere: every revocation event
 * evicts its key (each replica has its own exclusive queue on the events exchange), and on every
 * (re)connection to the broker the whole cache is cleared, since events sent while this replica was
 * disconnected never reach it. While disconnected the cache is not used at all (its `live`).
 * `onRevoked` ends what else the key holds open here (its event streams; those of a replica that
 * was disconnected are ended by the live feed's reconnect and must authenticate again).
 */
export async function startKeyRevocationFeed(
  bus: Bus,
  cache: KeyCache,
  logger: Logger,
  /** What else holds the key on this replica (its open event streams, ended here). */
  onRevoked: (apiKeyId: number) => void = () => undefined,
): Promise<void> {
  await bus.subscribe({
    bindings: [apiKeyRevoked.routingKey],
    handle: (_routingKey, payload) => {
      const checked = apiKeyRevokedPayload.validate(payload);
      if (checked.error) {
        // Some key was revoked, but which one is unreadable: forget them all.
        logger.warn({ err: checked.error.message }, 'unreadable API key revocation; key cache cleared');
        cache.clear();
        return;
      }
      const { api_key_id } = checked.value as ApiKeyRevokedPayload;
      cache.evictKey(api_key_id);
      onRevoked(api_key_id);
    },
    // Each time the queue is bound (at start, after every reconnect, before the bus counts as
    // connected again): whatever was revoked while it was not is unknown here.
    onSubscribed: () => cache.clear(),
  });
}
