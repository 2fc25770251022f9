/**
 * Politeness (spec-decisions "Crawling as a good citizen"): at most `perHost` requests at a time
 * to one host name, at most `perIp` to one resolved address (thousands of domains share a few
 * hosting IPs), at most `concurrency` in flight overall, and "not before" clocks per host and per
 * address that hold requests back after a 429, a 503 with Retry-After or a bot wall. Maps are
 * pruned as soon as a key is idle, so a crawl of a million hosts keeps state only for the hosts
 * in flight.
 */

import { FetchCounters } from './fetch-counters.js';

type Release = () => void;

interface Slot {
  active: number;
  waiters: Array<() => void>;
}

/** Counting semaphores by key, FIFO per key. */
export class KeyedLimiter {
  private readonly slots = new Map<string, Slot>();

  /** Number of keys with active or waiting requests. */
  get keys(): number {
    return this.slots.size;
  }

  /** Requests currently holding a slot, over all keys. */
  active(key?: string): number {
    if (key !== undefined) return this.slots.get(key)?.active ?? 0;
    let n = 0;
    for (const s of this.slots.values()) n += s.active;
    return n;
  }

  /** Takes a slot at once when one is free (no promise, no allocation beyond the releaser), else null. */
  tryAcquire(key: string, limit: number): Release | null {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { active: 0, waiters: [] };
      this.slots.set(key, slot);
    } else if (slot.active >= limit || slot.waiters.length > 0) return null;
    slot.active++;
    return this.releaser(key, slot);
  }

  async acquire(key: string, limit: number, signal?: AbortSignal): Promise<Release> {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { active: 0, waiters: [] };
      this.slots.set(key, slot);
    }
    if (slot.active < limit && slot.waiters.length === 0) {
      slot.active++;
      return this.releaser(key, slot);
    }
    const s = slot;
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = s.waiters.indexOf(wake);
        if (i >= 0) s.waiters.splice(i, 1);
        this.prune(key, s);
        reject(signal!.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      s.waiters.push(wake);
    });
    // The releaser handed its slot to us (active was not decremented).
    return this.releaser(key, s);
  }

  private releaser(key: string, slot: Slot): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = slot.waiters.shift();
      if (next) next(); // hand the slot over directly: FIFO, no thundering herd
      else {
        slot.active--;
        this.prune(key, slot);
      }
    };
  }

  private prune(key: string, slot: Slot): void {
    if (slot.active === 0 && slot.waiters.length === 0 && this.slots.get(key) === slot) this.slots.delete(key);
  }
}

/** Per-host "not before" clocks set by Retry-After / 429; expired entries are dropped. */
export class HostClocks {
  private readonly until = new Map<string, number>();
  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.until.size;
  }

  /** Holds the host back until `untilMs` (never shortens an existing hold). */
  defer(host: string, untilMs: number): void {
    const cur = this.until.get(host) ?? 0;
    if (untilMs > cur) this.until.set(host, untilMs);
    if (this.until.size > 10_000) this.sweep();
  }

  /** Milliseconds to wait before the next request to `host` (0 when free). */
  waitMs(host: string): number {
    const t = this.until.get(host);
    if (t === undefined) return 0;
    const w = t - this.now();
    if (w <= 0) {
      this.until.delete(host);
      return 0;
    }
    return w;
  }

  private sweep(): void {
    const now = this.now();
    for (const [h, t] of this.until) if (t <= now) this.until.delete(h);
  }
}

/** Told of each hold: its scope, the host or address key, how long, and why (`429`, `503`, `challenge:<vendor>`, …). */
export type BackoffListener = (scope: 'host' | 'ip', key: string, ms: number, cause: string) => void;

export interface PolitenessOptions {
  perHost: number;
  perIp: number;
  concurrency: number;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told of every hold set (a 429, a 503 with Retry-After, a bot wall). */
  onBackoff?: BackoffListener | undefined;
  /** Where the holds are counted (the fetch stack's one sink). @default a sink of its own */
  counters?: FetchCounters | undefined;
}

/** The slots one HTTP exchange must hold: host, then address, then a global one (fixed order: no deadlock). */
export class Politeness {
  readonly hosts = new KeyedLimiter();
  readonly ips = new KeyedLimiter();
  readonly global = new KeyedLimiter();
  readonly clocks: HostClocks;
  /** The same clocks per address: a CDN address that said "slow down" for one site is spared a moment by all (`--ip-backoff`). */
  readonly ipClocks: HostClocks;
  private readonly counters: FetchCounters;

  constructor(private readonly o: PolitenessOptions) {
    this.clocks = new HostClocks(o.now);
    this.ipClocks = new HostClocks(o.now);
    this.counters = o.counters ?? new FetchCounters();
  }

  /** Holds set so far, by scope (read from the sink). */
  get backoffs(): { readonly hosts: number; readonly ips: number } {
    return this.counters.backoffs;
  }

  /** Holds `host` back for `hostMs` and the address `ip` for `ipMs` (0 = not held); counted once per scope. */
  backOff(host: string, hostMs: number, ip: string | null, ipMs: number, cause: string): void {
    const now = this.o.now();
    if (hostMs > 0) {
      this.clocks.defer(host, now + hostMs);
      this.counters.backoff('host', cause);
      this.o.onBackoff?.('host', host, hostMs, cause);
    }
    if (ip !== null && ipMs > 0) {
      this.ipClocks.defer(ip, now + ipMs);
      this.counters.backoff('ip', cause);
      this.o.onBackoff?.('ip', ip, ipMs, cause);
    }
  }

  get inFlight(): number {
    return this.global.active('*');
  }

  /** The fast path: all three slots free and no clock hold, taken synchronously; else null (nothing held). */
  tryEnter(host: string, ip: string): Release | null {
    if (this.clocks.waitMs(host) > 0 || this.ipClocks.waitMs(ip) > 0) return null;
    const releaseHost = this.hosts.tryAcquire(host, this.o.perHost);
    if (!releaseHost) return null;
    const releaseIp = this.ips.tryAcquire(ip, this.o.perIp);
    if (!releaseIp) return void releaseHost(), null;
    const releaseGlobal = this.global.tryAcquire('*', this.o.concurrency);
    if (!releaseGlobal) return void releaseIp(), void releaseHost(), null;
    return () => {
      releaseGlobal();
      releaseIp();
      releaseHost();
    };
  }

  async enter(host: string, ip: string, signal?: AbortSignal): Promise<Release> {
    const releaseHost = await this.hosts.acquire(host, this.o.perHost, signal);
    try {
      // Retry-After (RFC 9110 §10.2.3) / 429 (RFC 6585 §4): wait out the host's clock while
      // holding its slot, so no other request to that host jumps the queue.
      for (let w = this.clocks.waitMs(host); w > 0; w = this.clocks.waitMs(host)) await this.o.sleep(w, signal);
      // The address's clock is waited out before taking its slot, so a held address's slots
      // go to requests for other addresses meanwhile.
      for (let w = this.ipClocks.waitMs(ip); w > 0; w = this.ipClocks.waitMs(ip)) await this.o.sleep(w, signal);
      const releaseIp = await this.ips.acquire(ip, this.o.perIp, signal);
      try {
        const releaseGlobal = await this.global.acquire('*', this.o.concurrency, signal);
        return () => {
          releaseGlobal();
          releaseIp();
          releaseHost();
        };
      } catch (err) {
        releaseIp();
        throw err;
      }
    } catch (err) {
      releaseHost();
      throw err;
    }
  }
}
