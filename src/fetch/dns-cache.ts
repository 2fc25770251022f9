import { Resolver, lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Resolves a host name to its addresses (IPv4 first). Rejects with a Node DNS error when it cannot. */
export type HostResolver = (host: string) => Promise<string[]>;

export interface ResolverOptions {
  /** Resolvers to ask, as `setServers` spells them (`127.0.0.1:5353`, `[::1]:53`); empty = the system's. */
  servers?: readonly string[];
  /** Time-out of the first try of a query, ms; c-ares doubles it on each further try. @default 5000 */
  timeoutMs?: number;
  /** Tries per server before a query gives up (ETIMEOUT). @default 2 */
  tries?: number;
}

/** CNAMEs followed by hand at most (RFC 1034 §3.6.2 expects the resolver to chase them; see below). */
const MAX_CNAME_HOPS = 8;

const codeOf = (err: unknown) => (err as { code?: string } | null)?.code;

/**
 * The crawl resolver: c-ares (`resolve4`, then `resolve6` for a host with no IPv4 address), not
 * getaddrinfo, because getaddrinfo runs on libuv's 4-thread pool and stalls a crawl of thousands
 * of names; it also never consults /etc/hosts, so a listed domain cannot be aimed at the machine
 * through it. A recursive resolver answers a name that is a CNAME with the whole chain and the
 * addresses at its end, which c-ares follows; when the answer holds only the CNAME (an
 * authoritative server of another zone, a forwarder that does not chase), the chain is followed
 * here, at most MAX_CNAME_HOPS links. Errors are Node DNS errors (dns-errors.ts classifies them).
 */
export function dnsResolver(o: ResolverOptions = {}): HostResolver {
  const resolver = new Resolver({ timeout: o.timeoutMs ?? 5000, tries: o.tries ?? 2 });
  if (o.servers && o.servers.length > 0) resolver.setServers([...o.servers]);
  const addresses = async (host: string): Promise<string[]> => {
    try {
      const v4 = await resolver.resolve4(host);
      if (v4.length > 0) return v4;
    } catch (err) {
      if (codeOf(err) !== 'ENODATA') throw err;
    }
    return resolver.resolve6(host);
  };
  return async (host) => {
    let name = host;
    for (let hop = 0; ; hop++) {
      try {
        return await addresses(name);
      } catch (err) {
        if (codeOf(err) !== 'ENODATA' || hop >= MAX_CNAME_HOPS) throw err;
        let next: string[];
        try {
          next = await resolver.resolveCname(name);
        } catch {
          throw err; // no CNAME either: the name has no address (ENODATA)
        }
        if (next.length === 0 || next[0]!.toLowerCase() === name) throw err;
        name = next[0]!.toLowerCase();
      }
    }
  };
}

/** The system's resolvers (/etc/resolv.conf), through c-ares. */
export function systemResolver(timeoutMs = 5000): HostResolver {
  return dnsResolver({ timeoutMs });
}

/** Operator-given names (`--connect-to` targets) go through getaddrinfo, so `localhost` works. */
export const operatorResolver: HostResolver = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

interface Entry {
  expires: number;
  addresses: string[] | null;
  error: unknown;
}

/**
 * A bounded LRU cache in front of a resolver: positive answers live `ttlMs`, failures
 * `negativeTtlMs`; concurrent lookups of one name share one query. Bounded so a crawl of a
 * million names does not keep a million entries (undici's dns interceptor is unbounded by default).
 */
export class DnsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<string[]>>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly resolver: HostResolver,
    private readonly maxItems: number,
    private readonly ttlMs: number,
    private readonly negativeTtlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached addresses of `host` (or the address itself), synchronously; null when a lookup is needed. */
  cached(host: string): string[] | null {
    if (isIP(host)) return [host];
    const hit = this.entries.get(host);
    if (!hit || hit.addresses === null || hit.expires <= this.now()) return null;
    this.hits++;
    return hit.addresses;
  }

  async resolve(host: string): Promise<string[]> {
    if (isIP(host)) return [host];
    const hit = this.entries.get(host);
    if (hit && hit.expires > this.now()) {
      this.hits++;
      // Refresh recency: Map keeps insertion order, so re-insert to mark as most recent.
      this.entries.delete(host);
      this.entries.set(host, hit);
      if (hit.addresses === null) throw hit.error;
      return hit.addresses;
    }
    const inFlight = this.pending.get(host);
    if (inFlight) return inFlight;
    this.misses++;
    const p = this.lookup(host);
    this.pending.set(host, p);
    try {
      return await p;
    } finally {
      this.pending.delete(host);
    }
  }

  private async lookup(host: string): Promise<string[]> {
    try {
      const addresses = await this.resolver(host);
      if (addresses.length === 0) throw Object.assign(new Error(`no address for ${host}`), { code: 'ENODATA' });
      this.store(host, { expires: this.now() + this.ttlMs, addresses, error: null });
      return addresses;
    } catch (err) {
      this.store(host, { expires: this.now() + this.negativeTtlMs, addresses: null, error: err });
      throw err;
    }
  }

  private store(host: string, entry: Entry): void {
    this.entries.delete(host);
    this.entries.set(host, entry);
    while (this.entries.size > this.maxItems) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
