import type { FetchRow } from './types.js';

/**
 * The one sink for a fetch stack's events: requests sent, chains finished (one `fetches` row
 * each), bytes read, errors, bot walls, 429s and the holds they set. The Fetcher, its politeness
 * slots and its wall policy count here as the events happen; the run's counters (RunStats: the
 * progress line and the manifest), `Fetcher.stats()` (tests) and the benchmarks all read this
 * one object, so no copy can drift from what the product reports.
 */
export class FetchCounters {
  /** HTTP requests sent (every hop and retry). */
  requests = 0;
  /** Request chains finished: one `fetches` row each (an HTTPS try and its HTTP fallback are two). */
  chains = 0;
  /** `fetch()` calls finished. */
  fetches = 0;
  /** Decoded body bytes handed to consumers. */
  bytes = 0;
  /** Chains ended by each error code. */
  readonly errors: Record<string, number> = {};
  /** Chains that ended on a bot wall (error `challenge`), and those answered 429 otherwise. */
  walls = 0;
  rateLimited = 0;
  /** Walls met, by vendor (challenge.ts); a wall may be met on a hop that a redirect or retry left behind. */
  readonly wallVendors: Record<string, number> = {};
  /** Holds set on hosts and on addresses (politeness.ts), and the causes of the host holds (`429`, `503`, `challenge:<vendor>`). */
  readonly backoffs = { hosts: 0, ips: 0 };
  readonly backoffCauses: Record<string, number> = {};

  sent(): void {
    this.requests++;
  }

  /** A chain finished with this row. */
  chain(r: FetchRow): void {
    this.chains++;
    if (typeof r.bytes === 'number') this.bytes += r.bytes;
    if (r.error) this.errors[r.error] = (this.errors[r.error] ?? 0) + 1;
    if (r.error === 'challenge') this.walls++;
    else if (r.status_code === 429) this.rateLimited++;
  }

  wall(vendor: string): void {
    this.wallVendors[vendor] = (this.wallVendors[vendor] ?? 0) + 1;
  }

  backoff(scope: 'host' | 'ip', cause: string): void {
    if (scope === 'ip') return void this.backoffs.ips++;
    this.backoffs.hosts++;
    this.backoffCauses[cause] = (this.backoffCauses[cause] ?? 0) + 1;
  }
}
