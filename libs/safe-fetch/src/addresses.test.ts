import { isPublicAddress } from './addresses';

const PUBLIC: Array<[string, string]> = [
  ['8.8.8.8', 'Google DNS'],
  ['1.1.1.1', 'Cloudflare DNS'],
  ['2606:4700:4700::1111', 'Cloudflare DNS over IPv6'],
  ['2001:4860:4860::8888', 'Google DNS over IPv6'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.1', 'just above 172.16/12'],
  ['100.63.255.255', 'just below CGNAT'],
  ['100.128.0.1', 'just above CGNAT'],
  ['198.17.255.255', 'just below benchmarking'],
  ['198.20.0.1', 'just above benchmarking'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public address'],
  ['64:ff9b::808:808', 'NAT64 of a public address (DNS64 on IPv6-only hosts)'],
  ['2002:808:808::1', '6to4 of a public address'],
];

const NON_PUBLIC: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback, end of 127/8'],
  ['::1', 'IPv6 loopback'],
  ['10.0.0.1', 'private 10/8'],
  ['172.16.0.1', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12, last address'],
  ['192.168.1.1', 'private 192.168/16'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd12:3456:789a::1', 'unique local fd00::/8'],
  ['169.254.169.254', 'cloud metadata (link-local)'],
  ['169.254.0.1', 'link-local'],
  ['fe80::1', 'IPv6 link-local'],
  ['fe80::1%eth0', 'IPv6 link-local with a zone'],
  ['2606:4700:4700::1111%eth0', 'global address scoped to one link'],
  ['100.64.0.1', 'CGNAT 100.64/10'],
  ['100.127.255.254', 'CGNAT, end of range'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '0.0.0.0/8'],
  ['::', 'IPv6 unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['ff02::1', 'IPv6 multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.255', 'benchmarking, end of range'],
  ['2001:2::1', 'IPv6 benchmarking'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['198.51.100.1', 'documentation TEST-NET-2'],
  ['203.0.113.1', 'documentation TEST-NET-3'],
  ['2001:db8::1', 'IPv6 documentation'],
  ['192.0.0.1', 'IETF protocol assignments'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata address'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
  ['64:ff9b:1::a00:1', 'local-use NAT64 prefix'],
  ['2002:c0a8:0101::1', '6to4 of 192.168.1.1'],
  ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
  ['::7f00:1', 'deprecated IPv4-compatible form of 127.0.0.1'],
  ['2001::1', 'Teredo'],
  ['fec0::1', 'deprecated site-local'],
  ['100::1', 'discard prefix'],
];

const NOT_ADDRESSES = ['example.com', '', '999.1.1.1', '1.2.3.4.5', 'fe80::zz', 'localhost'];

describe('isPublicAddress', () => {
  it.each(PUBLIC)('treats %s (%s) as public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each(NON_PUBLIC)('treats %s (%s) as not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(NOT_ADDRESSES)('treats %j, which is not an IP address, as not public', (text) => {
    expect(isPublicAddress(text)).toBe(false);
  });

  it('classifies a bracketed IPv6 literal by its address', () => {
    expect(isPublicAddress('[2606:4700:4700::1111]')).toBe(true);
    expect(isPublicAddress('[::1]')).toBe(false);
  });
});
