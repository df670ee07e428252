import { FetchError, UnsafeUrlError, type UnsafeUrlReason } from './errors';
import { assertFetchableUrl, type SafeFetchPolicy } from './policy';

const HTTPS_ONLY = { allowPrivate: false, allowHttp: false };
const HTTP_TOO = { allowPrivate: false, allowHttp: true };

/** A resolver that knows a few names and records what it was asked, so no test touches real DNS. */
function fakeDns(records: Record<string, string[]>) {
  return jest.fn(async (host: string) => {
    const answer = records[host];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer;
  });
}

async function refusal(url: string, policy: SafeFetchPolicy): Promise<UnsafeUrlError> {
  const err: unknown = await assertFetchableUrl(url, policy).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof UnsafeUrlError)) throw new Error(`expected UnsafeUrlError for ${url}, got ${String(err)}`);
  return err;
}

describe('assertFetchableUrl', () => {
  it('returns the parsed URL of an https URL whose host resolves only to public addresses', async () => {
    const resolve = fakeDns({ 'images.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    const url = await assertFetchableUrl('https://images.example/a.png?x=1', { ...HTTPS_ONLY, resolve });
    expect(url.href).toBe('https://images.example/a.png?x=1');
    expect(resolve).toHaveBeenCalledWith('images.example');
  });

  it.each<[string, UnsafeUrlReason, SafeFetchPolicy]>([
    ['ftp://x', 'scheme', HTTP_TOO],
    ['file:///etc/passwd', 'scheme', HTTP_TOO],
    ['gopher://images.example/', 'scheme', HTTP_TOO],
    ['data:image/png;base64,AAAA', 'scheme', HTTP_TOO],
    ['http://images.example/a.png', 'scheme', HTTPS_ONLY],
    ['https://user:pass@images.example/', 'credentials', HTTPS_ONLY],
    ['https://user@images.example/', 'credentials', HTTPS_ONLY],
    ['not a url', 'invalid-url', HTTPS_ONLY],
    ['/relative/path.png', 'invalid-url', HTTPS_ONLY],
    ['https://images.example:25/', 'port', HTTPS_ONLY],
    ['https://images.example:6667/', 'port', HTTPS_ONLY],
  ])('refuses %s (%s) by its shape, without resolving it', async (url, reason, policy) => {
    const resolve = fakeDns({ 'images.example': ['93.184.216.34'] });
    expect((await refusal(url, { ...policy, resolve })).reason).toBe(reason);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('accepts plain http when the policy allows it', async () => {
    const resolve = fakeDns({ 'images.example': ['93.184.216.34'] });
    await expect(assertFetchableUrl('http://images.example/', { ...HTTP_TOO, resolve })).resolves.toBeInstanceOf(URL);
  });

  it('accepts a non-default port that is not on the blocked list', async () => {
    const resolve = fakeDns({ 'images.example': ['93.184.216.34'] });
    const url = await assertFetchableUrl('https://images.example:8443/a.png', { ...HTTPS_ONLY, resolve });
    expect(url.port).toBe('8443');
  });

  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[64:ff9b::a00:1]/',
    'http://0/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://10.0.0.1:8080/',
  ])('refuses the literal host of %s as a private address, without DNS', async (url) => {
    const resolve = fakeDns({});
    expect((await refusal(url, { ...HTTP_TOO, resolve })).reason).toBe('private-address');
    expect(resolve).not.toHaveBeenCalled();
  });

  it('refuses a host when any one of its addresses is private', async () => {
    const resolve = fakeDns({ 'mixed.example': ['93.184.216.34', '10.0.0.5'] });
    const err = await refusal('https://mixed.example/', { ...HTTPS_ONLY, resolve });
    expect(err.reason).toBe('private-address');
    expect(err.message).toContain('10.0.0.5');
  });

  it('refuses a host that resolves to an IPv4-mapped loopback address', async () => {
    const resolve = fakeDns({ 'sneaky.example': ['::ffff:127.0.0.1'] });
    expect((await refusal('https://sneaky.example/', { ...HTTPS_ONLY, resolve })).reason).toBe('private-address');
  });

  it('reports a host that does not resolve as a network failure, not as unsafe', async () => {
    const resolve = fakeDns({});
    const err: unknown = await assertFetchableUrl('https://nowhere.example/', { ...HTTPS_ONLY, resolve }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).kind).toBe('network');
  });

  it('lets private addresses through when the policy allows them', async () => {
    const resolve = fakeDns({ 'dev.internal': ['192.168.1.20'] });
    await expect(
      assertFetchableUrl('https://127.0.0.1:8443/', { allowPrivate: true, allowHttp: false }),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      assertFetchableUrl('https://dev.internal/', { allowPrivate: true, allowHttp: false, resolve }),
    ).resolves.toBeInstanceOf(URL);
  });
});
