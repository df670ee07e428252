import { promises as dns } from 'node:dns';
import net from 'node:net';
import { isPublicAddress } from './addresses';
import { FetchError, UnsafeUrlError } from './errors';

export interface SafeFetchPolicy {
  /** Allow loopback/private/link-local targets (tests and local development only). Default false. */
  allowPrivate: boolean;
  /** Allow plain http (local development only). Default false: https only. */
  allowHttp: boolean;
  /**
   * DNS resolver (tests): every address a host name resolves to. Used both for the check and at
   * connect time. Defaults to the system resolver (`dns.promises.lookup` with `all: true`).
   */
  resolve?: (host: string) => Promise<string[]>;
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await dns.lookup(host, { all: true })).map((a) => a.address);

/**
 * The Fetch standard's "bad ports" (https://fetch.spec.whatwg.org/#port-blocking), plus 0: ports of
 * plain-text protocols (SMTP, IRC, ...) that an HTTP request could be smuggled into. Browsers refuse
 * them for the same reason, so no legitimate image host uses them.
 */
const BLOCKED_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The host of a parsed URL as Node's net layer sees it: IPv6 literals without their brackets. */
export function bareHost(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Refuses a URL by its shape alone (no DNS): invalid, wrong scheme, credentials, blocked port. */
export function checkUrlShape(raw: string, policy: SafeFetchPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('invalid-url', 'Not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new UnsafeUrlError(
      'scheme',
      `Scheme ${url.protocol} is not allowed${policy.allowHttp ? '' : ' (https only)'}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeUrlError('credentials', 'URLs with credentials are not allowed');
  }
  // An empty port means the scheme's default (443/80), which is fine.
  if (url.port !== '' && BLOCKED_PORTS.has(Number(url.port))) {
    throw new UnsafeUrlError('port', `Port ${url.port} is not allowed`);
  }
  return url;
}

/** Throws UnsafeUrlError('private-address') unless the address may be reached under this policy. */
export function assertAllowedAddress(address: string, host: string, policy: SafeFetchPolicy): void {
  if (policy.allowPrivate || isPublicAddress(address)) return;
  throw new UnsafeUrlError(
    'private-address',
    address === host ? `Address ${address} is not public` : `Host ${host} resolves to non-public address ${address}`,
  );
}

/**
 * Every address a host stands for: itself when it is an IP literal (Node connects to a literal
 * without any lookup), otherwise its DNS answers. A host that does not resolve is a FetchError
 * ('network'), not an UnsafeUrlError: the URL may be fine, the name just does not exist (now).
 */
export async function resolveHost(host: string, policy: SafeFetchPolicy): Promise<string[]> {
  if (net.isIP(host) !== 0) return [host];
  let addresses: string[];
  try {
    addresses = await (policy.resolve ?? systemResolver)(host);
  } catch (err) {
    throw new FetchError('network', `Could not resolve ${host}`, { cause: err });
  }
  if (addresses.length === 0) throw new FetchError('network', `Could not resolve ${host}`);
  return addresses;
}

/**
 * Parses and checks a URL's shape and, after resolving its host via DNS, every address it resolves
 * to. Throws UnsafeUrlError; throws FetchError('network') when the host does not resolve.
 * The URL's host is checked in its WHATWG-normalised form, so `http://0x7f.1/` and
 * `http://2130706433/` are checked as 127.0.0.1.
 */
export async function assertFetchableUrl(url: string, policy: SafeFetchPolicy): Promise<URL> {
  const parsed = checkUrlShape(url, policy);
  const host = bareHost(parsed);
  for (const address of await resolveHost(host, policy)) assertAllowedAddress(address, host, policy);
  return parsed;
}
