import { isIP } from 'node:net';

/**
 * `--dns-server ADDR[:PORT]` (docs/guide/real-web.md#resolving-names): the resolvers the crawl asks instead of the system's
 * (/etc/resolv.conf). An address, not a name (a resolver cannot be found by resolving), IPv6 in
 * brackets when a port is given (`[::1]:53`), as `dig @` and c-ares' `setServers` spell it.
 */
export interface DnsServer {
  address: string;
  port: number;
}

/** Parses one spec; throws a TypeError naming what is wrong. */
export function parseDnsServer(spec: string): DnsServer {
  const s = spec.trim();
  const fail = (why: string): never => {
    throw new TypeError(`--dns-server ${JSON.stringify(spec)}: ${why} (ADDR, ADDR:PORT, or [IPv6]:PORT)`);
  };
  let address: string;
  let port = '53';
  if (s.startsWith('[')) {
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
    if (!m) return fail('not a bracketed IPv6 address');
    address = m[1]!;
    if (m[2] !== undefined) port = m[2];
    if (isIP(address) !== 6) return fail(`${JSON.stringify(address)} is not an IPv6 address`);
  } else if (isIP(s) === 6) {
    address = s; // a bare IPv6 address: no port can follow without brackets
  } else {
    const m = /^([^:]+)(?::(\d+))?$/.exec(s);
    if (!m) return fail('not an address');
    address = m[1]!;
    if (m[2] !== undefined) port = m[2];
    if (isIP(address) !== 4) return fail(`${JSON.stringify(address)} is not an IP address (a resolver is given by address)`);
  }
  const n = /^\d{1,5}$/.test(port) ? Number(port) : NaN;
  if (!(n >= 1 && n <= 65535)) return fail(`port ${JSON.stringify(port)} is not 1-65535`);
  return { address: address.toLowerCase(), port: n };
}

/** The spelling c-ares' `setServers` takes, and the run manifest records. */
export function formatDnsServer(s: DnsServer): string {
  return isIP(s.address) === 6 ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`;
}
