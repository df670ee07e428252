import { silentLogger } from '@mf/testing';
import { SharedStreamSlots, type Lease, type LeaseStore } from './shared-stream-slots';

/** A store that records renewals and holds every user-lease take until `grantUser` is called. */
function gatedStore() {
  const renewed: Lease[][] = [];
  let grantUser: (ok: boolean) => void = () => undefined;
  const store: LeaseStore = {
    take: (lease) =>
      lease.key.startsWith('user:') ? new Promise<boolean>((resolve) => (grantUser = resolve)) : Promise.resolve(true),
    renew: (leases) => {
      renewed.push(leases);
      return Promise.resolve();
    },
    free: () => Promise.resolve(),
  };
  return { store, renewed, grantUser: (ok: boolean) => grantUser(ok) };
}

const options = { perKey: 10, perUser: 15, ttlMs: 60_000, logger: silentLogger(), storeName: 'test' };
const owner = { key: 'key:1', user: 'user:1' };

describe('stream slots shared through a lease store', () => {
  it("renews a key's lease while the user's lease is still being taken", async () => {
    const { store, renewed, grantUser } = gatedStore();
    const slots = new SharedStreamSlots(store, options);
    const pending = slots.acquire(owner);
    await new Promise((r) => setImmediate(r));
    await slots.renew();
    expect(renewed.at(-1)?.map((l) => l.key)).toEqual(['key:1']);
    grantUser(true);
    await pending;
    await slots.renew();
    expect(renewed.at(-1)?.map((l) => l.key)).toEqual(['key:1', 'user:1']);
    expect(slots.total).toBe(1);
    await slots.stop();
  });

  it("stops renewing the key's lease once the user's limit refuses the stream", async () => {
    const { store, renewed, grantUser } = gatedStore();
    const slots = new SharedStreamSlots(store, options);
    const pending = slots.acquire(owner);
    await new Promise((r) => setImmediate(r));
    grantUser(false);
    await expect(pending).rejects.toMatchObject({ kind: 'rate_limited' });
    renewed.length = 0;
    await slots.renew();
    expect(renewed).toEqual([]);
    expect(slots.total).toBe(0);
    await slots.stop();
  });
});
