import type { Row, TableName } from '../schemas/tables.js';
import type { Fetcher, FetchOutcome } from '../src/fetch/index.js';
import type { SnapshotWriter } from '../src/sink/index.js';
import type { BodyStore } from '../src/store/body-store.js';
import type { PreviousLookup } from './previous-lookup.js';
import { RunStats } from './run-stats.js';

/** What every crawl job shares: the fetch stack, the snapshot writer, options and run counters. */
export interface CrawlContext {
  fetcher: Fetcher;
  out: RowEmitter;
  stats: RunStats;
  options: {
    /** robots.txt verdicts computed per host (robots_verdicts). */
    verdictAgents: readonly string[];
    verdictPaths: readonly string[];
    /** spec-decisions: ads.txt/app-ads.txt/sellers.json are fetched even where robots.txt disallows, unless 'all'. */
    obeyRobots: 'store' | 'all';
    /** Product token used for adsnap's own robots.txt verdicts. */
    productToken: string;
  };
  signal: AbortSignal;
  /** Where fetched bodies are kept, content-addressed (DIR/_bodies), or null to keep none. */
  bodies: BodyStore | null;
  /** The earlier snapshot an incremental run builds on, or null. */
  incremental: Incremental | null;
  /** `--now` minus the real clock: freshness of new fetches is computed on the same clock as reuse. */
  clockOffsetMs: number;
}

export interface Incremental {
  previous: PreviousLookup;
  /** The store holding the earlier snapshot's bodies. */
  earlierBodies: BodyStore;
  /** "Now" for freshness decisions. */
  now: Date;
  /** Send conditional requests even for copies that are still fresh. */
  revalidate: boolean;
}

/**
 * Hands rows to the snapshot writer. Parsers call back synchronously, so a writer that asks the
 * crawl to wait (backpressure) is remembered here and awaited by the job at its next `settle()`,
 * which it calls after each body chunk: at most one chunk's rows are ever held beyond the
 * writer's high-water mark.
 */
export class RowEmitter {
  private wait: Promise<void> | null = null;

  constructor(private readonly writer: SnapshotWriter) {}

  emit<N extends TableName>(table: N, row: Row<N>): void {
    const p = this.writer.write(table, row);
    if (p) this.wait = this.wait ? this.wait.then(() => p) : p;
  }

  /** Resolves once the writer has room again. */
  async settle(): Promise<void> {
    while (this.wait) {
      const w = this.wait;
      this.wait = null;
      await w;
    }
  }

  /** Writes a request's `fetches` rows and counts them. */
  fetches(outcome: FetchOutcome<unknown>, stats: RunStats): void {
    for (const r of outcome.rows) {
      this.emit('fetches', r);
      stats.countFetch(r);
    }
  }
}
