import type { Bus } from '@mf/bus';
import { apiKeyRevoked } from '@mf/contracts';
import { createLogger } from '@mf/logger';
import { KeyCache } from './key-cache';
import { keyRevocations, startKeyRevocationFeed } from './key-revocations';

const logger = createLogger('key-revocations-test', 'silent');

type Handle = (routingKey: string, payload: unknown) => void;

/** A bus whose one subscription's handler the test calls, as the broker would; publishes are recorded. */
function fakeBus() {
  let handle: Handle = () => undefined;
  const published: unknown[] = [];
  const bus = {
    subscribe: (opts: { handle: Handle; onSubscribed?: () => void }) => {
      handle = opts.handle;
      opts.onSubscribed?.();
      return Promise.resolve();
    },
    publishEvent: (_event: unknown, payload: unknown) => {
      published.push(payload);
      return Promise.resolve();
    },
  };
  // Only subscribe and publishEvent are used here.
  return {
    bus: bus as unknown as Bus,
    deliver: (payload: unknown) => handle(apiKeyRevoked.routingKey, payload),
    published,
  };
}

describe('key revocations', () => {
  it("ends what a replica holds for a key revoked on another replica (its streams), beside evicting the key's cache", async () => {
    const { bus, deliver } = fakeBus();
    const ended: number[] = [];
    const cache = new KeyCache({ ttlMs: 60_000, live: () => true });
    await startKeyRevocationFeed(bus, cache, logger, (id) => ended.push(id));
    deliver({ api_key_id: 42, user_id: 7 });
    expect(ended).toEqual([42]);
  });

  it('ends them at once on the replica that revokes, before the broadcast', async () => {
    const { bus, published } = fakeBus();
    const ended: number[] = [];
    const announce = keyRevocations({ bus: () => Promise.resolve(bus), logger, onRevoked: (id) => ended.push(id) });
    expect(await announce.announce({ id: 42, user_id: 7 })).toBe(true);
    expect(ended).toEqual([42]);
    expect(published).toEqual([{ api_key_id: 42, user_id: 7 }]);
  });
});
