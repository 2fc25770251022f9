import { BlockList } from 'node:net';
import ipaddr from 'ipaddr.js';

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

/**
 * The IPv4 addresses an IPv6 address carries, read from its 16 bytes (not its text, so every
 * spelling — `::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1`, `::127.0.0.1` — reads the same):
 * - IPv4-compatible `::a.b.c.d` (RFC 4291 §2.5.5.1, deprecated; `::` and `::1` excepted),
 *   IPv4-mapped `::ffff:a.b.c.d` (§2.5.5.2), IPv4-translated `::ffff:0:a.b.c.d` (RFC 2765);
 * - NAT64: the well-known `64:ff9b::/96` (RFC 6052) and the local-use `64:ff9b:1::/48`
 *   (RFC 8215), where the address may sit in the last 32 bits (a /96 prefix) or, for a /48
 *   prefix, in bits 48–63 and 72–87 (RFC 6052 §2.2): both readings are checked;
 * - 6to4 `2002::/16` (RFC 3056: bits 16–47);
 * - Teredo `2001::/32` (RFC 4380: the server in bits 32–63, the client in the last 32 bits,
 *   inverted).
 * A translator or relay would carry a connection to any of them, so each must pass the guard.
 */
function embeddedIpv4(b: number[]): string[] {
  const v4 = (i: number, j = i + 1, k = i + 2, l = i + 3, x = 0) => [b[i]! ^ x, b[j]! ^ x, b[k]! ^ x, b[l]! ^ x].join('.');
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 12) && !(zero(12, 15) && b[15]! <= 1)) return [v4(12)];
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return [v4(12)];
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return [v4(12)];
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zero(4, 12)) return [v4(12)];
    // Of the two readings, one is all zeros in practice (the part the other layout leaves unused).
    if (b[4] === 0 && b[5] === 1) return [v4(12), v4(6, 7, 9, 10)].filter((a) => a !== '0.0.0.0');
  }
  if (b[0] === 0x20 && b[1] === 0x02) return [v4(2)];
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) return [v4(4), v4(12, 13, 14, 15, 0xff)];
  return [];
}

/**
 * True when connecting to `address` (an IP literal) must be refused; anything that is not an IP
 * literal is refused too. Parsed by ipaddr.js, so IPv4 in any form inet_aton accepts (`0x7f.1`,
 * `2130706433`, `127.1`, octal) is judged as the address it denotes, and an IPv6 zone id
 * (`fe80::1%eth0`) does not hide the address.
 */
export function isBlockedAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.trim());
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv4') return blocked.check(parsed.toString(), 'ipv4');
  const v6 = parsed as ipaddr.IPv6;
  const bytes = v6.toByteArray();
  if (embeddedIpv4(bytes).some((v4) => blocked.check(v4, 'ipv4'))) return true;
  return blocked.check(ipaddr.fromByteArray(bytes).toNormalizedString(), 'ipv6');
}

/**
 * `--allow-addresses CIDR` (docs/guide/real-web.md): networks an operator opens for a test network (the
 * simulated web's 127.x addresses behind its own DNS). Never a default; the run manifest records
 * them. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is judged as the IPv4 address it carries.
 */
export class AddressAllowList {
  private readonly list = new BlockList();
  /** The networks, normalised (`127.16.0.0/16`, `::1/128`), in the order given. */
  readonly cidrs: readonly string[];

  constructor(specs: readonly string[]) {
    this.cidrs = specs.map(parseAllowCidr);
    for (const c of this.cidrs) {
      const [net, bits] = c.split('/') as [string, string];
      this.list.addSubnet(net, Number(bits), net.includes(':') ? 'ipv6' : 'ipv4');
    }
  }

  get size(): number {
    return this.cidrs.length;
  }

  has(address: string): boolean {
    if (this.cidrs.length === 0) return false;
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.parse(address.trim());
    } catch {
      return false;
    }
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    return parsed.kind() === 'ipv4' ? this.list.check(parsed.toString(), 'ipv4') : this.list.check((parsed as ipaddr.IPv6).toNormalizedString(), 'ipv6');
  }
}

/** One `--allow-addresses` value: `ADDR/BITS` or a single address; throws a TypeError naming it. */
export function parseAllowCidr(spec: string): string {
  const s = spec.trim();
  try {
    if (!s.includes('/')) {
      const a = ipaddr.parse(s);
      return `${a.toString()}/${a.kind() === 'ipv4' ? 32 : 128}`;
    }
    if (!ipaddr.isValidCIDR(s)) throw new Error('bad');
    const [a, bits] = ipaddr.parseCIDR(s);
    // The network address itself (127.16.3.4/16 → 127.16.0.0/16), so the manifest says what is open.
    const net = a.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(s).toString() : ipaddr.IPv6.networkAddressFromCIDR(s).toString();
    return `${net}/${bits}`;
  } catch {
    throw new TypeError(`--allow-addresses ${JSON.stringify(spec)}: not an address or CIDR network (e.g. 127.16.0.0/16, ::1/128)`);
  }
}

/** The addresses of `addresses` that may be connected to, in order: not blocked, or in the operator's allow list. */
export function allowedAddresses(addresses: readonly string[], allow?: AddressAllowList | null): string[] {
  return addresses.filter((a) => !isBlockedAddress(a) || (allow?.has(a) ?? false));
}
