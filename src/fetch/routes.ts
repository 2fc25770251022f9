import { isIP } from 'node:net';

/**
 * Where the connector really connects for an origin. Requests are dispatched to the *host*
 * origin (`https://example.com:443`), so undici keeps one pool per host and a keep-alive
 * connection serves robots.txt → ads.txt → redirects of one site, with TLS SNI = the host. The
 * address was chosen before dispatch (DNS + address guard, or a --connect-to target) and is
 * recorded here; the connector looks it up instead of resolving the name again, so it can never
 * connect anywhere the guard did not approve.
 *
 * An entry is held by every exchange that dispatches to its origin, from before dispatch until the
 * exchange finishes, and dropped when the last one lets go: undici opens connections only for a
 * dispatched request, so a connect always finds its entry, and a crawl of a million hosts keeps
 * entries only for the hosts in flight.
 */
export interface Route {
  /** IP address to connect to. */
  address: string;
  /** TCP port to connect to. */
  port: number;
}

interface Entry extends Route {
  holds: number;
}

/** `https:|example.com|443`: the same key from the exchange's side and from the connector's. */
export function routeKey(protocol: string, host: string, port: number): string {
  return `${protocol}|${host}|${port}`;
}

/** The undici origin for a host (brackets around an IPv6 literal), port always written. */
export function hostOrigin(protocol: string, host: string, port: number): string {
  return `${protocol}//${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

export class RouteTable {
  private readonly entries = new Map<string, Entry>();

  /** Entries held right now (hosts being fetched). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Records that `key` connects to address:port until the returned release is called (idempotent).
   * A newer answer for a key already held replaces the address for connections opened from now on.
   */
  hold(key: string, address: string, port: number): () => void {
    let e = this.entries.get(key);
    if (e) {
      e.address = address;
      e.port = port;
      e.holds++;
    } else {
      e = { address, port, holds: 1 };
      this.entries.set(key, e);
    }
    const entry = e;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--entry.holds === 0 && this.entries.get(key) === entry) this.entries.delete(key);
    };
  }

  lookup(key: string): Route | undefined {
    return this.entries.get(key);
  }
}
