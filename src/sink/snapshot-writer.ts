/**
 * The snapshot writer: rows in, one Parquet part per table per flush out (contract §2–3).
 *
 * Rows are collected per table into small column batches on the caller's thread and posted to
 * the encoder worker, which encodes and writes row groups as they fill. `write()` is synchronous
 * and cheap; it returns a promise only when more than `highWaterRows` rows are posted but not
 * yet encoded, and that promise resolves once the encoder has caught up to half of that. A caller
 * that awaits it (`const p = w.write(t, r); if (p) await p;`) slows down to the disk's pace
 * instead of filling memory.
 */
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { tables as allTables, tableNames, type Row, type TableName } from '../../schemas/tables.js';
import { detach } from '../util/detach.js';
import { startEncoder, type EncoderClient } from './encoder-client.js';
import { tablePlan, type TablePlan } from './parquet-schema.js';
import { planCommit, publishPlan } from './commit.js';
import type { PartSpec } from './part-encoder.js';
import { ensureDir, partitionDir, publishPart, sweepTemporaryParts, tempPartPath, unpublishPart } from './part-files.js';
import { resolveWriterOptions, type ResolvedWriterOptions, type SnapshotWriterOptions, type StagedPart } from './writer-options.js';

export interface CommittedPart {
  table: TableName;
  /** Path relative to `outDir`, with `/` separators (for manifests). */
  file: string;
  /** Absolute path. */
  path: string;
  rows: number;
  bytes: number;
  /** Sequence number of the part within its run (also in the part's `adsnap.part_seq` metadata). */
  seq: number;
}

export interface CommitResult {
  runId: string;
  snapshotDate: string;
  parts: CommittedPart[];
  rows: Partial<Record<TableName, number>>;
  /** Per table: rows and the parts this run committed (the shape the run manifest records). */
  tables: Record<string, { rows: number; parts: string[] }>;
}

export interface WriterStats {
  /** Rows posted to the encoder and not yet encoded. */
  pendingRows: number;
  /** Highest `pendingRows` seen: the memory bound actually used. */
  maxPendingRows: number;
  /** Times `write()` asked the caller to wait. */
  waits: number;
  rows: Partial<Record<TableName, number>>;
}

export interface SnapshotWriter {
  write<N extends TableName>(table: N, row: Row<N>): void | Promise<void>;
  flush(): Promise<void>;
  /**
   * Seals every open part; with a staging directory, returns the parts staged up to this call
   * (adopted ones included). What the caller wrote before calling is in them, and nothing
   * written after the call is: the boundary is taken synchronously, so work may go on while the
   * seal completes.
   */
  checkpoint(): Promise<StagedPart[]>;
  /**
   * Rows that go to parts of their own and count only once kept (`SideParts.keep`): the rows of
   * a body still being read, or of a unit of work that is not done, which must vanish without a
   * trace when it fails or a checkpoint is taken before it is done.
   */
  openSideParts(): SideParts;
  /** Staging mode: seals everything (an empty part for each table without one) and returns every staged part. */
  seal(): Promise<StagedPart[]>;
  commit(): Promise<CommitResult>;
  abort(options?: { keepCommitted?: boolean }): Promise<void>;
  stats(): WriterStats;
}

export interface SideParts {
  write<N extends TableName>(table: N, row: Row<N>): void | Promise<void>;
  /** The rows count from now: their parts are sealed and staged as of this call (synchronous). */
  keep(): void;
  /** The rows are dropped; their temporary files removed. */
  drop(): void;
}

interface TableState {
  name: TableName;
  plan: TablePlan;
  dir: string;
  converters: ((v: unknown) => unknown)[];
  columns: unknown[][];
  buffered: number;
  current: { partId: number; seq: number; tmpPath: string } | null;
  /** Rows sent to the current part. */
  partRows: number;
  rows: number;
  /** The side parts these rows belong to, or null for the writer's own parts. */
  side: Side | null;
}

/** A staged part, with the checkpoint generation in which it was sealed. */
type Staged = StagedPart & { gen: number };

interface SealedPart {
  st: TableState;
  seq: number;
  tmpPath: string;
  rows: number;
  bytes: number;
}

export async function openSnapshotWriter(options: SnapshotWriterOptions): Promise<SnapshotWriter> {
  const o = resolveWriterOptions(options);
  const states = new Map<TableName, TableState>();
  for (const name of o.tables) {
    const st = newTableState(o, name, null);
    await ensureDir(st.dir);
    states.set(name, st);
  }
  return new ParquetSnapshotWriter(o, states, startEncoder(!o.worker));
}

function newTableState(o: ResolvedWriterOptions, name: TableName, side: Side | null): TableState {
  const plan = tablePlan(allTables[name]);
  return {
    name,
    plan,
    dir: partitionDir(o.outDir, name, o.snapshotDate),
    converters: plan.columns.map((c) => converter(name, c.name, c.type, c.nullable)),
    columns: plan.columns.map(() => []),
    buffered: 0,
    current: null,
    partRows: 0,
    rows: 0,
    side,
  };
}

/** Rows of one unit of work, held in parts of their own until the unit is kept or dropped. */
class Side implements SideParts {
  readonly states = new Map<TableName, TableState>();
  /** Parts of these rows already sealed (rolled at `partRows`), waiting for keep or drop. */
  readonly sealed: SealedPart[] = [];
  readonly sealing = new Set<Promise<void>>();
  state: 'open' | 'kept' | 'dropped' = 'open';

  constructor(private readonly w: ParquetSnapshotWriter) {}

  write<N extends TableName>(table: N, row: Row<N>): void | Promise<void> {
    if (this.state !== 'open') throw new Error(`side parts already ${this.state}`);
    return this.w.writeTo(this, table, row);
  }

  keep(): void {
    if (this.state !== 'open') throw new Error(`side parts already ${this.state}`);
    this.state = 'kept';
    this.w.keepSide(this);
  }

  drop(): void {
    if (this.state !== 'open') return;
    this.state = 'dropped';
    this.w.dropSide(this);
  }
}

class ParquetSnapshotWriter implements SnapshotWriter {
  private seq = 0;
  private nextPartId = 1;
  private pendingRows = 0;
  private maxPendingRows = 0;
  private waits = 0;
  private drainWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private inflight = new Set<Promise<unknown>>();
  /** Parts being sealed and staged (flush, checkpoint and commit wait for them). */
  readonly sealing = new Set<Promise<void>>();
  private failure: Error | null = null;
  private closed = false;
  private readonly committed: CommittedPart[] = [];
  private readonly staged: Staged[];
  /** Checkpoint generation: a part sealed (or side kept) now belongs to the next checkpoint. */
  private generation = 0;
  private sealedAll = false;

  constructor(
    private readonly o: ResolvedWriterOptions,
    private readonly states: Map<TableName, TableState>,
    private readonly encoder: EncoderClient,
  ) {
    this.staged = o.adopt.map((p) => ({ ...p, gen: -1 }));
  }

  write<N extends TableName>(table: N, row: Row<N>): void | Promise<void> {
    const st = this.states.get(table);
    if (!st) throw new TypeError(`table ${table} is not written by this snapshot writer`);
    return this.append(st, row);
  }

  /** A side's write: its own table state, created on first use. */
  writeTo<N extends TableName>(side: Side, table: N, row: Row<N>): void | Promise<void> {
    let st = side.states.get(table);
    if (!st) {
      if (!this.states.has(table)) throw new TypeError(`table ${table} is not written by this snapshot writer`);
      st = newTableState(this.o, table, side);
      side.states.set(table, st);
    }
    return this.append(st, row);
  }

  private append(st: TableState, row: object): void | Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error('snapshot writer is closed');
    const { columns, converters, plan } = st;
    const r = row as Record<string, unknown>;
    for (let c = 0; c < columns.length; c++) columns[c]!.push(converters[c]!(r[plan.columns[c]!.name]));
    st.buffered++;
    st.rows++;
    if (st.buffered >= this.o.batchRows) this.sendBatch(st);
    if (this.pendingRows > this.o.highWaterRows) {
      this.waits++;
      return new Promise((resolve, reject) => this.drainWaiters.push({ resolve, reject }));
    }
  }

  openSideParts(): SideParts {
    if (this.failure) throw this.failure;
    return new Side(this);
  }

  /** Seals the side's parts and stages them in the current generation (the boundary is this call). */
  keepSide(side: Side): void {
    const gen = this.generation;
    const finishing: Promise<void>[] = [...side.sealing];
    for (const st of side.states.values()) {
      if (st.buffered > 0) this.sendBatch(st);
      if (st.current) finishing.push(this.finishPart(st));
    }
    const staged = Promise.all(finishing)
      .then(async () => {
        for (const part of side.sealed.splice(0)) await this.stageOrPublish(part, gen);
      })
      .catch((err: Error) => this.fail(err));
    this.sealing.add(staged);
    void staged.finally(() => this.sealing.delete(staged));
  }

  dropSide(side: Side): void {
    for (const st of side.states.values()) {
      st.columns = st.plan.columns.map(() => []);
      st.buffered = 0;
      if (st.current) this.track(this.encoder.request({ op: 'discard', partId: st.current.partId }).catch(() => undefined));
      st.current = null;
    }
    const removing = Promise.allSettled([...side.sealing]).then(async () => {
      for (const part of side.sealed.splice(0)) await rm(part.tmpPath, { force: true });
    });
    this.track(removing);
  }

  async flush(): Promise<void> {
    this.check();
    const finishing: Promise<void>[] = [];
    for (const st of this.states.values()) {
      if (st.buffered > 0) this.sendBatch(st);
      if (st.current) finishing.push(this.finishPart(st));
    }
    await Promise.all([...finishing, ...this.sealing]);
    this.check();
  }

  async checkpoint(): Promise<StagedPart[]> {
    // flush() detaches every open part synchronously (they are sealed in generation `gen`);
    // only then does the generation move on, for whatever is written or kept after this call.
    const gen = this.generation;
    const flushed = this.flush();
    this.generation++;
    await flushed;
    return this.staged.filter((p) => p.gen <= gen).map(stagedPart);
  }

  async seal(): Promise<StagedPart[]> {
    if (!this.o.stagingDir) throw new Error('seal() is for a writer with a staging directory');
    await this.finishWithEmptyParts(this.staged);
    this.sealedAll = true;
    await this.encoder.close();
    return this.staged.map(stagedPart);
  }

  async commit(): Promise<CommitResult> {
    if (this.o.stagingDir) {
      // Unjournaled: the crawl commits through its checkpoint (commit.ts) so that a kill can be redone.
      const staged = this.sealedAll ? this.staged.map(stagedPart) : await this.seal();
      const plan = await planCommit(this.o.outDir, this.o.snapshotDate, staged);
      await publishPlan(this.o.outDir, this.o.stagingDir, plan, async () => {});
      for (const p of plan) {
        this.committed.push({ table: p.table, file: p.final, path: path.join(this.o.outDir, p.final), rows: p.rows, bytes: p.bytes, seq: 0 });
      }
      for (const p of staged) await rm(path.join(this.o.stagingDir, p.file), { force: true });
      return this.result();
    }
    await this.finishWithEmptyParts(this.committed);
    await this.encoder.close();
    return this.result();
  }

  /**
   * Flushes, then writes an empty part for every table with none in `written`:
   * read_parquet('DIR/t/*\/*.parquet') fails on a table with no file at all, and analysts' queries
   * should not depend on what a run found. Waits for every part to be sealed; the writer is closed.
   */
  private async finishWithEmptyParts(written: readonly { table: string }[]): Promise<void> {
    await this.flush();
    const empties: Promise<void>[] = [];
    for (const st of this.states.values()) {
      if (!written.some((p) => p.table === st.name)) {
        this.openPart(st);
        empties.push(this.finishPart(st));
      }
    }
    await Promise.all(empties);
    await Promise.all([...this.sealing]);
    this.check();
    this.closed = true;
  }

  private result(): CommitResult {
    const rows: Partial<Record<TableName, number>> = {};
    const tables: CommitResult['tables'] = {};
    for (const st of this.states.values()) {
      const mine = this.committed.filter((p) => p.table === st.name);
      st.rows = mine.reduce((n, p) => n + p.rows, 0);
      rows[st.name] = st.rows;
      tables[st.name] = { rows: st.rows, parts: mine.map((p) => p.file) };
    }
    return { runId: this.o.runId, snapshotDate: this.o.snapshotDate, parts: [...this.committed], rows, tables };
  }

  async abort(options: { keepCommitted?: boolean } = {}): Promise<void> {
    this.closed = true;
    this.failure ??= new Error('snapshot writer aborted');
    // Callers waiting on backpressure just resume; their next write() throws.
    for (const w of this.drainWaiters.splice(0)) w.resolve();
    for (const st of this.states.values()) {
      if (st.current) this.track(this.encoder.request({ op: 'discard', partId: st.current.partId }).catch(() => undefined));
      st.current = null;
    }
    await Promise.allSettled([...this.inflight, ...this.sealing]);
    await this.encoder.close();
    // The worker may have died before discarding: remove this attempt's temporary files by name.
    await sweepTemporaryParts(this.o.outDir, this.o.runId, this.o.token);
    if (!options.keepCommitted) {
      for (const p of this.committed.splice(0)) await unpublishPart(p.path);
    }
  }

  stats(): WriterStats {
    const rows: Partial<Record<TableName, number>> = {};
    for (const st of this.states.values()) rows[st.name] = st.rows;
    return { pendingRows: this.pendingRows, maxPendingRows: this.maxPendingRows, waits: this.waits, rows };
  }

  private sendBatch(st: TableState): void {
    if (!st.current) this.openPart(st);
    const n = st.buffered;
    const columns = st.columns;
    st.columns = st.plan.columns.map(() => []);
    st.buffered = 0;
    this.pendingRows += n;
    if (this.pendingRows > this.maxPendingRows) this.maxPendingRows = this.pendingRows;
    this.track(
      this.encoder.request({ op: 'rows', partId: st.current!.partId, columns, rowCount: n }).then(
        () => {
          this.pendingRows -= n;
          if (this.pendingRows <= this.o.highWaterRows / 2) for (const w of this.drainWaiters.splice(0)) w.resolve();
        },
        (err: Error) => this.fail(err),
      ),
    );
    st.partRows += n;
    if (st.partRows >= this.o.partRows) {
      const sealed = this.finishPart(st).catch((err: Error) => this.fail(err)); // later writes, flush and commit throw it
      const owner = st.side ?? this;
      owner.sealing.add(sealed);
      void sealed.finally(() => owner.sealing.delete(sealed));
    }
  }

  private openPart(st: TableState): void {
    const seq = ++this.seq;
    const partId = this.nextPartId++;
    const tmpPath = tempPartPath(st.dir, this.o.runId, this.o.token, st.name, seq);
    const spec: PartSpec = {
      plan: st.plan,
      tmpPath,
      rowGroupRows: this.o.rowGroupRows,
      kvMetadata: [
        { key: 'adsnap.run_id', value: this.o.runId },
        { key: 'adsnap.part_seq', value: String(seq) },
        { key: 'adsnap.table', value: st.name },
        { key: 'adsnap.snapshot_date', value: this.o.snapshotDate },
      ],
      ...(this.o.slowRowGroupMs ? { slowRowGroupMs: this.o.slowRowGroupMs } : {}),
    };
    st.current = { partId, seq, tmpPath };
    st.partRows = 0;
    this.track(this.encoder.request({ op: 'open', partId, spec }).catch((err: Error) => this.fail(err)));
  }

  /**
   * Seals the table's open part; later rows go to a new part. The writer's own parts are staged
   * (or published) in the generation current at this call; a side's wait for its keep or drop.
   */
  private async finishPart(st: TableState): Promise<void> {
    const part = st.current!;
    const gen = this.generation;
    st.current = null;
    const done = this.encoder.request({ op: 'finish', partId: part.partId });
    this.track(done.catch(() => undefined));
    const result = await done.catch((err: Error) => {
      this.fail(err);
      throw err;
    });
    const sealed: SealedPart = { st, seq: part.seq, tmpPath: part.tmpPath, rows: result?.rows ?? 0, bytes: result?.bytes ?? 0 };
    if (st.side) {
      if (st.side.state === 'dropped') await rm(part.tmpPath, { force: true });
      else st.side.sealed.push(sealed);
      return;
    }
    await this.stageOrPublish(sealed, gen);
  }

  private async stageOrPublish(part: SealedPart, gen: number): Promise<void> {
    if (this.closed && this.failure) return; // aborted meanwhile: sweepTemporaryParts removes it
    const table = part.st.name;
    if (this.o.stagingDir) {
      // Not `.parquet`: nothing staged may match a table glob, even a recursive one.
      const file = `${table}-${this.o.attempt}-${String(part.seq).padStart(5, '0')}.parquet.staged`;
      await rename(part.tmpPath, path.join(this.o.stagingDir, file));
      this.staged.push({ table, file, rows: part.rows, bytes: part.bytes, gen });
      return;
    }
    const final = await publishPart(part.st.dir, part.tmpPath);
    this.committed.push({
      table,
      file: path.relative(this.o.outDir, final).split(path.sep).join('/'),
      path: final,
      rows: part.rows,
      bytes: part.bytes,
      seq: part.seq,
    });
  }

  private track(p: Promise<unknown>): void {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.drainWaiters.splice(0)) w.reject(this.failure);
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }
}

function stagedPart(p: Staged): StagedPart {
  return { table: p.table, file: p.file, rows: p.rows, bytes: p.bytes };
}

/** Per-column value check/conversion, done once per value on the caller's thread. */
function converter(table: string, column: string, type: string, nullable: boolean): (v: unknown) => unknown {
  const missing = (v: unknown) => {
    if (!nullable) throw new TypeError(`${table}.${column} is required (got ${v})`);
    return null;
  };
  if (type === 'timestamp') {
    return (v) => {
      if (v === null || v === undefined) return missing(v);
      const ms = v instanceof Date ? v.getTime() : NaN;
      if (Number.isNaN(ms)) throw new TypeError(`${table}.${column} must be a valid Date`);
      return ms * 1000; // TIMESTAMP(MICROS): exact in a double until the year 2255
    };
  }
  // A batch can wait minutes for its rows (a table that gets one row every few sites), so its
  // strings are stored as their own copies, not as views that keep a whole body chunk alive.
  if (type === 'string') {
    // The rows of one file repeat values (subject, file kind): a run of equal strings is copied
    // once. Only the copy is remembered (`!==` compares content), so no input stays pinned.
    let last: string | undefined;
    return (v) => {
      if (typeof v !== 'string') return v === null || v === undefined ? missing(v) : v;
      if (v !== last) last = detach(v);
      return last;
    };
  }
  if (type === 'string[]') return (v) => (v === null || v === undefined ? missing(v) : Array.isArray(v) ? v.map((e: unknown) => (typeof e === 'string' ? detach(e) : e)) : v);
  return (v) => (v === null || v === undefined ? missing(v) : v);
}

export { tableNames };
