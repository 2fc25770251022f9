/** Snapshot writer options, validated once at the edge into a resolved object the writer trusts. */
import { randomBytes } from 'node:crypto';
import { tableNames, type TableName } from '../../schemas/tables.js';
import { isCalendarDate } from '../util/calendar-date.js';

export interface SnapshotWriterOptions {
  /** Snapshot root (contract §2: DIR/<table>/snapshot_date=…/part-NNNNN.parquet). */
  outDir: string;
  /** YYYY-MM-DD, the Hive partition value. */
  snapshotDate: string;
  /** Unique per run; letters, digits, `-`, `_` (it appears in temporary file names). */
  runId: string;
  /** Rows per Parquet row group. @default 65536 */
  rowGroupRows?: number;
  /** Tables written; every one gets at least an empty part on commit. @default all tables */
  tables?: readonly TableName[];
  /**
   * Rows after which a table's part is sealed and the next rows go to a new part. The encoder
   * keeps every row group's footer metadata (column statistics, offsets) until its part is
   * sealed, about 1–2 KB per column chunk, so without a cap that memory would grow with the run.
   * Rounded up to whole row groups. @default 64 × rowGroupRows
   */
  partRows?: number;
  /** Rows per batch posted to the encoder; bounds the per-message cost on the caller's thread. @default 2048 */
  batchRows?: number;
  /** Posted-but-not-encoded rows above which `write()` returns a promise. @default 2 × rowGroupRows */
  highWaterRows?: number;
  /** Encode in a worker thread (true) or on the caller's thread (false, for comparison). @default true */
  worker?: boolean;
  /** Tests/benchmarks only: sleep this long after each row group, like a slow disk. */
  slowRowGroupMs?: number;
  /**
   * Resumable runs: sealed parts go here (invisible to table globs) instead of being published,
   * and are published together by commit(). Parts staged by an earlier attempt of the same run
   * are handed back with `adopt`. @default null (publish on every flush)
   */
  stagingDir?: string | null;
  /** Parts staged by an earlier attempt of this run, published at commit. @default [] */
  adopt?: readonly StagedPart[];
  /** Distinguishes staged part names of successive attempts of one run. @default 1 */
  attempt?: number;
  /** Unique to this attempt (in temporary part names, so no two processes share one). @default random */
  token?: string;
}

/** A sealed part waiting in the staging directory for the run's commit. */
export interface StagedPart {
  table: TableName;
  /** File name inside the staging directory. */
  file: string;
  rows: number;
  bytes: number;
}

export type ResolvedWriterOptions = Required<Omit<SnapshotWriterOptions, 'slowRowGroupMs' | 'stagingDir' | 'adopt' | 'attempt' | 'token'>> & {
  token: string;
  slowRowGroupMs: number;
  stagingDir: string | null;
  adopt: readonly StagedPart[];
  attempt: number;
};

export function resolveWriterOptions(o: SnapshotWriterOptions): ResolvedWriterOptions {
  if (typeof o.outDir !== 'string' || o.outDir === '') throw new TypeError('outDir must be a non-empty path');
  if (!isCalendarDate(o.snapshotDate)) {
    throw new TypeError(`snapshotDate must be a calendar date YYYY-MM-DD, got ${JSON.stringify(o.snapshotDate)}`);
  }
  if (o.token !== undefined && !/^[a-z0-9]{1,32}$/.test(o.token)) throw new TypeError(`token must be 1–32 lower-case letters or digits, got ${JSON.stringify(o.token)}`);
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(o.runId)) throw new TypeError(`runId must be 1–80 letters, digits, '-' or '_', got ${JSON.stringify(o.runId)}`);
  const rowGroupRows = positiveInt('rowGroupRows', o.rowGroupRows, 65536);
  const partRows = Math.ceil(positiveInt('partRows', o.partRows, 64 * rowGroupRows) / rowGroupRows) * rowGroupRows;
  const batchRows = Math.min(positiveInt('batchRows', o.batchRows, 2048), rowGroupRows);
  const highWaterRows = positiveInt('highWaterRows', o.highWaterRows, 2 * rowGroupRows);
  const tables = o.tables ?? tableNames;
  for (const t of tables) if (!tableNames.includes(t)) throw new TypeError(`unknown table ${JSON.stringify(t)}`);
  return {
    outDir: o.outDir,
    snapshotDate: o.snapshotDate,
    runId: o.runId,
    rowGroupRows,
    partRows,
    batchRows,
    highWaterRows,
    tables: [...new Set(tables)],
    worker: o.worker ?? true,
    slowRowGroupMs: o.slowRowGroupMs ?? 0,
    stagingDir: o.stagingDir ?? null,
    adopt: o.adopt ?? [],
    attempt: positiveInt('attempt', o.attempt, 1),
    token: o.token ?? randomBytes(6).toString('hex'),
  };
}

function positiveInt(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || v < 1) throw new TypeError(`${name} must be a positive integer, got ${v}`);
  return v;
}
