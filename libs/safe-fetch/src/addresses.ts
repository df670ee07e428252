import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address is a public unicast address, i.e. one a user-supplied URL may reach.
 * Anything that is not a valid address, or that carries a zone id, is not public.
 *
 * IPv4: only ipaddr.js's 'unicast' range (everything it does not classify as loopback, private,
 * link-local, CGNAT, unspecified, broadcast, multicast, reserved/documentation/benchmarking, ...).
 * IPv6: addresses that embed an IPv4 address reachable through them (IPv4-mapped, the NAT64
 * well-known prefix, 6to4) are judged by that IPv4 address; everything else must be 'unicast' and
 * inside 2000::/3, the only block IANA allocates as global unicast (so the deprecated
 * IPv4-compatible ::a.b.c.d, which ipaddr.js calls 'unicast', is refused too).
 */
export function isPublicAddress(ip: string): boolean {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (!ipaddr.isValid(text)) return false;
  const addr = ipaddr.parse(text);
  return addr.kind() === 'ipv4' ? isPublicV4(addr as ipaddr.IPv4) : isPublicV6(addr as ipaddr.IPv6);
}

function isPublicV4(addr: ipaddr.IPv4): boolean {
  return addr.range() === 'unicast';
}

function isPublicV6(addr: ipaddr.IPv6): boolean {
  // A scoped address only means something on one link: never a public destination.
  if (addr.zoneId) return false;
  const embedded = embeddedIPv4(addr.parts);
  if (embedded) return isPublicV4(embedded);
  return addr.range() === 'unicast' && (addr.parts[0] & 0xe000) === 0x2000;
}

/** The IPv4 address that traffic to this IPv6 address is delivered to, for the forms that embed one. */
function embeddedIPv4(parts: number[]): ipaddr.IPv4 | null {
  const [p0, p1, p2, p3, p4, p5, p6, p7] = parts;
  const zeroUpTo = (n: number) => parts.slice(0, n).every((p) => p === 0);
  // ::ffff:a.b.c.d, IPv4-mapped: a dual-stack socket connects to a.b.c.d itself.
  if (zeroUpTo(5) && p5 === 0xffff) return fromWords(p6, p7);
  // 64:ff9b::a.b.c.d, the NAT64 well-known prefix (RFC 6052): the translator forwards to a.b.c.d.
  if (p0 === 0x64 && p1 === 0xff9b && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0) return fromWords(p6, p7);
  // 2002:aabb:ccdd::/48, 6to4 (RFC 3056): the relay tunnels to aa.bb.cc.dd.
  if (p0 === 0x2002) return fromWords(p1, p2);
  return null;
}

function fromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
