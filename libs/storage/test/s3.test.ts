import { createStorage, type Storage } from '../src';
import { closedPort, readAll, S3RVER_ACCESS_KEY, S3RVER_SECRET_KEY, startS3rver } from './support';

/** What only the s3 driver does: bucket creation and failing readiness checks. */
describe('s3 storage against an S3 server', () => {
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  const storageFor = (bucket: string, overrides: { endpoint?: string; accessKey?: string } = {}): Storage =>
    createStorage({
      driver: 's3',
      endpoint: s3.endpoint,
      accessKey: S3RVER_ACCESS_KEY,
      secretKey: S3RVER_SECRET_KEY,
      bucket,
      ...overrides,
    });

  beforeAll(async () => {
    s3 = await startS3rver();
  });
  afterAll(async () => {
    await s3?.stop();
  });

  it('creates a missing bucket on the first write', async () => {
    const storage = storageFor('created-on-put');
    await storage.put('a/b.txt', Buffer.from('hello'), 'text/plain');
    expect((await readAll(await storage.get('a/b.txt'))).toString()).toBe('hello');
  });

  it('check() creates a missing bucket and passes', async () => {
    const storage = storageFor('created-on-check');
    await expect(storage.check()).resolves.toBeUndefined();
    // The bucket now exists: an absent key is simply absent.
    await expect(storage.stat('nothing/here')).resolves.toBeNull();
  });

  it('reads of a bucket nobody has written to yet find nothing rather than failing', async () => {
    const storage = storageFor('never-written');
    await expect(storage.stat('a/b')).resolves.toBeNull();
    await expect(storage.deletePrefix('a/')).resolves.toBeUndefined();
    await expect(storage.delete('a/b')).resolves.toBeUndefined();
  });

  it('check() fails for an endpoint where nothing listens', async () => {
    const storage = storageFor('mediaforge', { endpoint: `http://127.0.0.1:${await closedPort()}` });
    await expect(storage.check()).rejects.toThrow(/ECONNREFUSED|connect/);
  });

  // s3rver checks the access key id but not v4 signatures, so an unknown key id stands in for bad credentials.
  it('check() fails when the credentials are refused', async () => {
    const storage = storageFor('mediaforge', { accessKey: 'UNKNOWN' });
    await expect(storage.check()).rejects.toThrow();
  });

  it('a write fails while the server is down and succeeds on the same instance once it is up', async () => {
    const port = await closedPort();
    const storage = storageFor('mediaforge', { endpoint: `http://127.0.0.1:${port}` });
    await expect(storage.put('a/b', Buffer.from('x'), 'text/plain')).rejects.toThrow();
    const late = await startS3rver(port);
    try {
      await expect(storage.put('a/b', Buffer.from('x'), 'text/plain')).resolves.toMatchObject({ size: 1 });
    } finally {
      await late.stop();
    }
  });

  it('rejects an endpoint that is not http(s)', () => {
    expect(() => storageFor('mediaforge', { endpoint: 'ftp://127.0.0.1:21' })).toThrow(/http/);
  });
});
