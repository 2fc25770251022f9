/**
 * Addresses that do not answer a TCP SYN. A host whose address drops SYNs (a firewall, a machine
 * gone while its DNS stays) costs the whole connect deadline on every request: robots.txt and
 * ads.txt, each over HTTPS and then HTTP, one after another (one request at a time per host). A
 * top list holds a few percent of such sites, often many on one address (parked or sinkholed
 * names), and they held a large share of a night's request slots.
 *
 * So once an address:port has let `threshold` connects in a row time out before the TCP
 * handshake (never a TLS or HTTP stall: the SYN got no answer), further connects to it fail at
 * once, for `holdMs`, with the fetch error `unresponsive` ("not tried: this address did not
 * answer a connect earlier in the run"), not `timeout`, so the data says what was and was not
 * observed. Any connect that succeeds clears its count, so a busy shared address that drops one
 * SYN now and then is never held; after the hold one connect is tried again. The map is bounded.
 */
export interface UnresponsiveOptions {
  /** Connect time-outs in a row, with no success between, that mark an address (default 2). */
  threshold?: number;
  /** How long a marked address is skipped before one connect is tried again (default 10 min). */
  holdMs?: number;
  /** Addresses tracked at most; the oldest entry goes first (default 10,000). */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  timeouts: number;
  /** While > now, connects fail at once. */
  heldUntil: number;
}

export class UnresponsiveAddresses {
  private readonly entries = new Map<string, Entry>();
  private readonly threshold: number;
  private readonly holdMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** Connects refused at once because their address was held. */
  skipped = 0;
  /** Times an address was marked. */
  marked = 0;

  constructor(o: UnresponsiveOptions = {}) {
    this.threshold = o.threshold ?? 2;
    this.holdMs = o.holdMs ?? 10 * 60_000;
    this.maxEntries = o.maxEntries ?? 10_000;
    this.now = o.now ?? Date.now;
  }

  /** True when a connect to `key` (address:port) should not be tried now. */
  held(key: string): boolean {
    const e = this.entries.get(key);
    if (e === undefined || e.heldUntil === 0) return false;
    if (e.heldUntil > this.now()) {
      this.skipped++;
      return true;
    }
    // The hold is over: one connect may try again; a further time-out marks it at once.
    e.heldUntil = 0;
    e.timeouts = this.threshold - 1;
    return false;
  }

  /** A connect to `key` timed out before the TCP handshake completed. */
  timedOut(key: string): void {
    let e = this.entries.get(key);
    if (e === undefined) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      e = { timeouts: 0, heldUntil: 0 };
      this.entries.set(key, e);
    }
    e.timeouts++;
    if (e.timeouts >= this.threshold && e.heldUntil === 0) {
      e.heldUntil = this.now() + this.holdMs;
      this.marked++;
    }
  }

  /** A TCP handshake with `key` completed. */
  connected(key: string): void {
    if (this.entries.size > 0) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
