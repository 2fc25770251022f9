import { Resolver, lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Resolves a host name to its addresses (IPv4 first). Rejects with a Node DNS error when it cannot. */
export type HostResolver = (host: string) => Promise<string[]>;

/**
 * The default crawl resolver: c-ares (`resolve4`, then `resolve6`), not getaddrinfo, because
 * getaddrinfo runs on libuv's 4-thread pool and stalls a crawl of thousands of names; it also
 * never consults /etc/hosts, so a listed domain cannot be aimed at the machine through it.
 */
export function systemResolver(timeoutMs = 5000): HostResolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  return async (host) => {
    try {
      const v4 = await resolver.resolve4(host);
      if (v4.length > 0) return v4;
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENODATA') throw err;
    }
    return resolver.resolve6(host);
  };
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
