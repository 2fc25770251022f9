import { BlockList, isIP } from 'node:net';

/**
 * spec-decisions "Crawling as a good citizen, and safely": a listed domain can point its DNS
 * anywhere, so addresses DNS returns are refused when they reach this machine, its private
 * networks or a cloud metadata service (SSRF). `--connect-to` targets are exempt: the operator
 * chose them.
 */
const blocked = new BlockList();
// IPv4 (RFC 6890 special-purpose registry, the parts that are not the public Internet)
blocked.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network"
blocked.addSubnet('10.0.0.0', 8, 'ipv4'); // RFC 1918 private
blocked.addSubnet('100.64.0.0', 10, 'ipv4'); // RFC 6598 shared CGNAT space (also Alibaba metadata 100.100.100.200)
blocked.addSubnet('127.0.0.0', 8, 'ipv4'); // loopback
blocked.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, incl. 169.254.169.254 metadata
blocked.addSubnet('172.16.0.0', 12, 'ipv4'); // RFC 1918 private
blocked.addSubnet('192.0.0.0', 24, 'ipv4'); // IETF protocol assignments (incl. 192.0.0.192 metadata)
blocked.addSubnet('192.168.0.0', 16, 'ipv4'); // RFC 1918 private
blocked.addSubnet('198.18.0.0', 15, 'ipv4'); // benchmarking networks
blocked.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
blocked.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved + broadcast
blocked.addAddress('168.63.129.16', 'ipv4'); // Azure wire server (metadata on a public address)
// IPv6
blocked.addAddress('::', 'ipv6'); // unspecified
blocked.addAddress('::1', 'ipv6'); // loopback
blocked.addSubnet('fc00::', 7, 'ipv6'); // unique local (incl. fd00:ec2::254 AWS metadata)
blocked.addSubnet('fe80::', 10, 'ipv6'); // link-local
blocked.addSubnet('fec0::', 10, 'ipv6'); // deprecated site-local
blocked.addSubnet('ff00::', 8, 'ipv6'); // multicast

/** The IPv4 address embedded in an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(v6: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(v6);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True when connecting to `address` (an IP literal) must be refused; non-IPs are refused too. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== null) return blocked.check(v4, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

/** The addresses of `addresses` that may be connected to, in order. */
export function allowedAddresses(addresses: readonly string[]): string[] {
  return addresses.filter((a) => !isBlockedAddress(a));
}
