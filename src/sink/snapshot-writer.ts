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
import { rename } from 'node:fs/promises';
import path from 'node:path';
import { tables as allTables, tableNames, type Row, type TableName } from '../../schemas/tables.js';
import { detach } from '../util/detach.js';
import { startEncoder, type EncoderClient } from './encoder-client.js';
import { tablePlan, type TablePlan } from './parquet-schema.js';
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
  /** Seals every open part; with a staging directory, returns all parts staged so far (adopted ones included). */
  checkpoint(): Promise<StagedPart[]>;
  commit(): Promise<CommitResult>;
  abort(options?: { keepCommitted?: boolean }): Promise<void>;
  stats(): WriterStats;
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
}

export async function openSnapshotWriter(options: SnapshotWriterOptions): Promise<SnapshotWriter> {
  const o = resolveWriterOptions(options);
  const states = new Map<TableName, TableState>();
  for (const name of o.tables) {
    const dir = partitionDir(o.outDir, name, o.snapshotDate);
    await ensureDir(dir);
    const plan = tablePlan(allTables[name]);
    states.set(name, {
      name,
      plan,
      dir,
      converters: plan.columns.map((c) => converter(name, c.name, c.type, c.nullable)),
      columns: plan.columns.map(() => []),
      buffered: 0,
      current: null,
      partRows: 0,
      rows: 0,
    });
  }
  return new ParquetSnapshotWriter(o, states, startEncoder(!o.worker));
}

class ParquetSnapshotWriter implements SnapshotWriter {
  private seq = 0;
  private nextPartId = 1;
  private pendingRows = 0;
  private maxPendingRows = 0;
  private waits = 0;
  private drainWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private inflight = new Set<Promise<unknown>>();
  /** Parts sealed because they reached `partRows` (flush and commit wait for them). */
  private readonly sealing = new Set<Promise<void>>();
  private failure: Error | null = null;
  private closed = false;
  private readonly committed: CommittedPart[] = [];
  private readonly staged: StagedPart[];

  constructor(
    private readonly o: ResolvedWriterOptions,
    private readonly states: Map<TableName, TableState>,
    private readonly encoder: EncoderClient,
  ) {
    this.staged = [...o.adopt];
  }

  write<N extends TableName>(table: N, row: Row<N>): void | Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error('snapshot writer is closed');
    const st = this.states.get(table);
    if (!st) throw new TypeError(`table ${table} is not written by this snapshot writer`);
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
    await this.flush();
    return [...this.staged];
  }

  async commit(): Promise<CommitResult> {
    await this.flush();
    // An empty part for every table without one: read_parquet('DIR/t/*/*.parquet') fails on a
    // table with no file at all, and analysts' queries should not depend on what a run found.
    const empties: Promise<void>[] = [];
    for (const st of this.states.values()) {
      if (!this.committed.some((p) => p.table === st.name) && !this.staged.some((p) => p.table === st.name)) {
        this.openPart(st);
        empties.push(this.finishPart(st));
      }
    }
    await Promise.all(empties);
    // Staged parts (this attempt's and earlier attempts') become visible only now.
    for (const p of this.staged.splice(0)) {
      const st = this.states.get(p.table);
      if (!st) continue;
      const final = await publishPart(st.dir, path.join(this.o.stagingDir!, p.file));
      this.committed.push({ table: p.table, file: path.relative(this.o.outDir, final).split(path.sep).join('/'), path: final, rows: p.rows, bytes: p.bytes, seq: 0 });
    }
    this.check();
    this.closed = true;
    await this.encoder.close();
    const rows: Partial<Record<TableName, number>> = {};
    const tables: CommitResult['tables'] = {};
    for (const st of this.states.values()) {
      st.rows = this.committed.filter((p) => p.table === st.name).reduce((n, p) => n + p.rows, 0);
      rows[st.name] = st.rows;
      const parts = this.committed.filter((p) => p.table === st.name).map((p) => p.file);
      tables[st.name] = { rows: st.rows, parts };
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
    // The worker may have died before discarding: remove this run's temporary files by name.
    await sweepTemporaryParts(this.o.outDir, this.o.runId);
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
      this.sealing.add(sealed);
      void sealed.finally(() => this.sealing.delete(sealed));
    }
  }

  private openPart(st: TableState): void {
    const seq = ++this.seq;
    const partId = this.nextPartId++;
    const tmpPath = tempPartPath(st.dir, this.o.runId, st.name, seq);
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

  /** Seals the table's open part and publishes it; later rows go to a new part. */
  private async finishPart(st: TableState): Promise<void> {
    const part = st.current!;
    st.current = null;
    const done = this.encoder.request({ op: 'finish', partId: part.partId });
    this.track(done.catch(() => undefined));
    const result = await done.catch((err: Error) => {
      this.fail(err);
      throw err;
    });
    if (this.closed && this.failure) return; // aborted meanwhile: sweepTemporaryParts removes it
    if (this.o.stagingDir) {
      // Not `.parquet`: nothing staged may match a table glob, even a recursive one.
      const file = `${st.name}-${this.o.attempt}-${String(part.seq).padStart(5, '0')}.parquet.staged`;
      await rename(part.tmpPath, path.join(this.o.stagingDir, file));
      this.staged.push({ table: st.name, file, rows: result?.rows ?? 0, bytes: result?.bytes ?? 0 });
      return;
    }
    const final = await publishPart(st.dir, part.tmpPath);
    this.committed.push({
      table: st.name,
      file: path.relative(this.o.outDir, final).split(path.sep).join('/'),
      path: final,
      rows: result?.rows ?? 0,
      bytes: result?.bytes ?? 0,
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
