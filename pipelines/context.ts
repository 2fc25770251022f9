import type { Row, TableName } from '../schemas/tables.js';
import type { Fetcher, FetchOutcome } from '../src/fetch/index.js';
import type { SideParts, SnapshotWriter } from '../src/sink/index.js';
import type { BodyStore } from '../src/store/body-store.js';
import type { PreviousLookup } from './previous-lookup.js';
import { RunStats } from './run-stats.js';
import type { RobotsSemantics } from '../src/parse/robots/index.js';
import type { Clock } from '../src/util/clock.js';

/** What every crawl job shares: the fetch stack, the snapshot writer, options and run counters. */
export interface CrawlContext {
  fetcher: Fetcher;
  out: Rows;
  stats: RunStats;
  options: {
    /** robots.txt verdicts computed per host (robots_verdicts). */
    verdictAgents: readonly string[];
    verdictPaths: readonly string[];
    /** Product tokens of the agents catalogue (robots_agent_access; docs/reference/ai-crawlers.md). */
    agents: readonly string[];
    /** spec-decisions: ads.txt/app-ads.txt/sellers.json are fetched even where robots.txt disallows, unless 'all'. */
    obeyRobots: 'store' | 'all';
    /** Product token used for adsnap's own robots.txt verdicts. */
    productToken: string;
    /** The reading of robots.txt for every verdict of the run, adsnap's own included (--robots-semantics). */
    robotsSemantics: RobotsSemantics;
    /** --ai-signals: ask each listed site for its consent files (tdmrep.json, llms.txt, an RSL licence). */
    aiSignals: boolean;
  };
  signal: AbortSignal;
  /** Where fetched bodies are kept, content-addressed (DIR/_bodies), or null to keep none. */
  bodies: BodyStore | null;
  /** The earlier snapshot an incremental run builds on, or null. */
  incremental: Incremental | null;
  /** The run's clock (`--now`): the times rows record, and freshness of new fetches on the same clock as reuse. */
  clock: Clock;
}

/** A job over one item of a phase; what it returns runs in the same synchronous step as the item's commit. */
export type UnitWork<T> = (c: CrawlContext, item: T) => Promise<void | (() => void)>;

/**
 * Runs a step's units over its items, skipping what an earlier attempt finished, with
 * checkpoints (each item a unit: its rows reach the writer only when it is done); given to a step
 * by the runner, bound to the step's phase (crawl-run.ts).
 */
export type UnitPool = <T>(items: AsyncIterable<T> | Iterable<T>, work: UnitWork<T>) => Promise<void>;

export interface Incremental {
  previous: PreviousLookup;
  /** The store holding the earlier snapshot's bodies. */
  earlierBodies: BodyStore;
  /** "Now" for freshness decisions. */
  now: Date;
  /** Reuse copies that are still fresh without a request (by default every file is asked for). */
  reuseFresh: boolean;
}

/**
 * Where a job's rows go: the writer (the run's `RowEmitter`) or a scope of it (`begin()`).
 *
 * A scope holds the rows of something not finished yet: a body still being read, or a unit of
 * work (one listed site, one app) that a checkpoint may find half done. Its rows reach the
 * parent only on `commit()`, and vanish on `discard()`; so a body that fails half-way leaves no
 * row, and a checkpoint taken while a unit is in flight holds none of its rows (the unit is
 * redone after a resume). A scope keeps up to `SPILL_ROWS` rows in memory; past that it moves
 * them to side parts of the writer (their own Parquet parts, staged only when kept), so a 100 MB
 * sellers.json is never held in memory.
 *
 * Parsers call back synchronously, so a writer that asks the crawl to wait (backpressure) is
 * remembered here and awaited by the job at its next `settle()`, which it calls after each body
 * chunk: at most one chunk's rows are ever held beyond the writer's high-water mark.
 */
export interface Rows {
  emit<N extends TableName>(table: N, row: Row<N>): void;
  /** Resolves once the writer has room again. */
  settle(): Promise<void>;
  /** Writes a request's `fetches` rows (the Fetcher counted them: FetchCounters). */
  fetches(outcome: FetchOutcome<unknown>): void;
  /** A scope whose rows reach this one only when it is committed. */
  begin(): RowScope;
  /**
   * Something this scope's work added to a run-wide registry (a claimed subject, a partner):
   * while the scope is open it is provisional, and a checkpoint leaves it out (the work that
   * added it will be redone).
   */
  note(collection: string, value: string): void;
}

/** Rows kept in memory per scope before they move to side parts. */
export const SPILL_ROWS = 4096;

abstract class Emitter implements Rows {
  protected wait: Promise<void> | null = null;

  constructor(
    protected readonly writer: SnapshotWriter,
    protected readonly live: Set<RowScope>,
  ) {}

  abstract emit<N extends TableName>(table: N, row: Row<N>): void;
  abstract note(collection: string, value: string): void;

  protected waitFor(p: void | Promise<void>): void {
    if (p) this.wait = this.wait ? this.wait.then(() => p) : p;
  }

  async settle(): Promise<void> {
    while (this.wait) {
      const w = this.wait;
      this.wait = null;
      await w;
    }
  }

  fetches(outcome: FetchOutcome<unknown>): void {
    for (const r of outcome.rows) this.emit('fetches', r);
  }

  begin(): RowScope {
    const scope = new RowScope(this.writer, this.live, this);
    this.live.add(scope);
    return scope;
  }

  /** Takes a child scope's rows, side parts and notes (its commit). */
  abstract absorb(rows: BufferedRow[], sides: SideParts[], notes: Note[]): void;
}

type BufferedRow = { table: TableName; row: object };
type Note = readonly [collection: string, value: string];

/** The run's emitter: rows go straight to the snapshot writer. */
export class RowEmitter extends Emitter {
  constructor(writer: SnapshotWriter) {
    super(writer, new Set());
  }

  emit<N extends TableName>(table: N, row: Row<N>): void {
    this.waitFor(this.writer.write(table, row));
  }

  /** Run-level work (a phase's own rows) is never provisional. */
  note(): void {}

  absorb(rows: BufferedRow[], sides: SideParts[]): void {
    // Synchronous, all of it: a checkpoint sees a unit's rows entirely or not at all.
    for (const r of rows) this.waitFor(this.writer.write(r.table, r.row as Row<TableName>));
    for (const s of sides) s.keep();
  }

  /** Values that open scopes added to the run-wide registries: what a checkpoint leaves out. */
  provisional(): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const scope of this.live) {
      for (const [c, v] of scope.notes) {
        let set = out.get(c);
        if (!set) out.set(c, (set = new Set()));
        set.add(v);
      }
    }
    return out;
  }

  /** Scopes begun and neither committed nor discarded. */
  get openScopes(): number {
    return this.live.size;
  }
}

export class RowScope extends Emitter {
  private rows: BufferedRow[] = [];
  private side: SideParts | null = null;
  private readonly sides: SideParts[] = [];
  readonly notes: Note[] = [];
  private ended = false;

  constructor(
    writer: SnapshotWriter,
    live: Set<RowScope>,
    private readonly parent: Emitter,
  ) {
    super(writer, live);
  }

  emit<N extends TableName>(table: N, row: Row<N>): void {
    if (this.ended) throw new Error('row scope already ended');
    if (this.side) {
      this.waitFor(this.side.write(table, row));
      return;
    }
    this.rows.push({ table, row });
    if (this.rows.length >= SPILL_ROWS) this.spill();
  }

  note(collection: string, value: string): void {
    this.notes.push([collection, value]);
  }

  absorb(rows: BufferedRow[], sides: SideParts[], notes: Note[]): void {
    for (const r of rows) this.emit(r.table, r.row as Row<TableName>);
    this.sides.push(...sides);
    this.notes.push(...notes);
  }

  /** The rows count: they go to the parent (the writer, for a unit of work), synchronously. */
  commit(): void {
    if (this.ended) throw new Error('row scope already ended');
    this.ended = true;
    this.live.delete(this);
    const sides = this.side ? [...this.sides, this.side] : this.sides;
    this.parent.absorb(this.rows, sides, this.notes);
    this.rows = [];
  }

  /** The rows never happened. */
  discard(): void {
    if (this.ended) return;
    this.ended = true;
    this.live.delete(this);
    this.rows = [];
    this.side?.drop();
    for (const s of this.sides) s.drop();
  }

  private spill(): void {
    const side = this.writer.openSideParts();
    this.side = side;
    for (const r of this.rows) this.waitFor(side.write(r.table, r.row as Row<TableName>));
    this.rows = [];
  }
}
