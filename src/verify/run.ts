/**
 * `adsnap verify`'s run: the night chosen in the roots, its lookups attached (lookups.ts), the requests judged by
 * DuckDB into Parquet parts in a private temporary folder (the query's one pass over the input,
 * which may be stdin), the summary counted from them, then they are written, in order, in the format asked.
 * DuckDB's memory is capped and it spills (openSnapshotDb's private spill folder), so 10 million lines fit in bounded memory.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openSnapshotDb, type SnapshotDb } from '../sql/snapshot-db.js';
import { sqlString } from '../util/sql-literal.js';
import { REQ_HOST_MACRO, linesQuery } from './request-sql.js';
import { attachLookups, type LookupSource } from './lookups.js';
import { batchQuery, judgeKeyedQuery, keyedQuery } from './query.js';
import { RECORD_KEYS, keysOf } from './judge-sql.js';
import { concatBytes, concatPlan } from '../sink/parquet-concat.js';
import { isOutOfMemory } from '../util/duckdb-size.js';
import { stepTiming } from '../util/step-timing.js';
import { replaceFileFromStream } from '../util/atomic-file.js';
import type { VerifyFormat } from './formats.js';

/** `ADSNAP_VERIFY_TIMING=1`: each step of a run, its time and RSS, on stderr (docs/performance.md#verify). */
const timing = stepTiming('ADSNAP_VERIFY_TIMING');

export interface VerifyOptions {
  roots: readonly string[];
  /** A JSON Lines file, or '-' for stdin. */
  requests: string;
  /** YYYY-MM-DD, or 'latest' (the default). */
  night?: string;
  format: VerifyFormat;
  /** The output file; null for stdout. */
  out: string | null;
  /** DuckDB's memory_limit. @default '512MB' */
  memoryLimit?: string;
  /** Lines per batch (tests make several batches of a few lines). @default BATCH_LINES */
  batchLines?: number;
  /**
   * Where each batch finds its records: 'night' in the night's whole record lookup, 'run' in the
   * run's own records, cut from it in one pass first (judgeInBatches). @default recordSource's choice
   */
  records?: 'night' | 'run';
  /** Told when the night's lookups ran out of DuckDB's memory and are built again under `next` (lookups.ts). */
  onMemoryRetry?: (next: string, err: Error) => void;
  /**
   * Stops the run (its DuckDB statements interrupted, its temporary files removed, --out left as
   * it was) and rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

export interface VerifySummary {
  night: string;
  lines: number;
  /** Rows per authorization value. */
  verdicts: Record<string, number>;
  /** Rows per error code. */
  errors: Record<string, number>;
  schain: { valid: number; invalid: number; unknown: number; absent: number };
  /** Where the night's lookups came from (lookups.ts): kept with the night now, reused from an earlier run, or built for this run alone. */
  lookups: LookupSource;
}

/**
 * The macros of sql/views.sql that verify calls (after its table views; adsnap_host and the others
 * before them are always there): they read every table the lookups are built from, so no figure
 * view is created (openSnapshotDb's `only`: 0.7 s less).
 */
const VERIFY_MACROS = ['adsnap_auth_apps', 'adsnap_auth_files', 'adsnap_auth_records', 'adsnap_auth_partners', 'adsnap_auth_sellers',
  'adsnap_auth_verdict', 'adsnap_auth_reason', 'adsnap_pair_relationship'];

/** A night the roots do not hold: a usage error (exit 2; code 'USAGE', src/cli/exit-codes.ts), nothing written. */
export class NightNotHeldError extends Error {
  readonly code = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'NightNotHeldError';
  }
}

/** The nights the roots hold, oldest first. */
async function nightsOf(db: SnapshotDb): Promise<string[]> {
  const rows = await db.rows(`SELECT DISTINCT strftime(snapshot_date, '%Y-%m-%d') AS d FROM files ORDER BY d`);
  return rows.map((r) => String(r.d));
}

/** The night asked for, or a NightNotHeldError naming the nights the roots hold. */
export async function chooseNight(db: SnapshotDb, asked: string | undefined): Promise<string> {
  const nights = await nightsOf(db);
  if (nights.length === 0) throw new NightNotHeldError('the roots hold no night');
  if (asked === undefined || asked === 'latest') return nights[nights.length - 1]!;
  if (!nights.includes(asked)) throw new NightNotHeldError(`--night ${asked}: the roots hold ${nights.length === 1 ? 'only' : ''} ${nights.join(', ')}`.replace('  ', ' '));
  return asked;
}

export async function runVerify(o: VerifyOptions): Promise<VerifySummary> {
  o.signal?.throwIfAborted();
  let t0 = performance.now();
  const db = await openSnapshotDb(o.roots, { only: VERIFY_MACROS });
  const stop = () => db.interrupt();
  o.signal?.addEventListener('abort', stop, { once: true });
  const work = await mkdtemp(path.join(tmpdir(), 'adsnap-verify-'));
  try {
    const night = await chooseNight(db, o.night);
    timing('open', t0);
    const limit = o.memoryLimit ?? '512MB';
    await db.connection.run(`SET memory_limit = ${sqlString(limit)}`);
    await db.connection.run('SET preserve_insertion_order = true');
    t0 = performance.now();
    const lookups = await attachLookups(db, o.roots, night, work, { limit, onRetry: o.onMemoryRetry ?? (() => {}) });
    timing(`lookups (${lookups})`, t0);
    await db.connection.run(REQ_HOST_MACRO);
    const source = o.requests === '-' ? await saveStdin(work, o.signal) : o.requests;
    const parts = await judgeInBatches(db, source, work, o.batchLines ?? BATCH_LINES, o.records, o.signal);
    // The parts read in order are the output: no Parquet file of them all before the one asked for.
    const judged = `read_parquet([${parts.map(sqlString).join(', ')}])`;
    t0 = performance.now();
    const summary = { ...(await summarize(db, judged, night)), lookups };
    timing('summary', t0);
    t0 = performance.now();
    o.signal?.throwIfAborted();
    await writeOutput(db, parts, work, o);
    timing('output', t0);
    return summary;
  } catch (err) {
    // An interrupted statement fails with DuckDB's own message: the reason is the signal's.
    throw o.signal?.aborted ? o.signal.reason : err;
  } finally {
    o.signal?.removeEventListener('abort', stop);
    db.close();
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Rows per row group of the lines' table (a database of its own, l). DuckDB scans a table one row
 * group per thread, so under its default of 122,880 a batch of lines was one row group, parsed on
 * one thread; in groups of 16,384 a batch is four, which DuckDB's threads share. The lookups (w)
 * keep the default: in small groups they took longer to write than the batches gained.
 */
const LINES_ROW_GROUP_ROWS = 16_384;

/**
 * Lines per batch: each batch's joins, SupplyChain GROUP BY and sort hold one batch, not the
 * whole input nor the whole night. About 62,500: batches of 125,000 peaked at 1,039 MB RSS over 10M
 * requests (docs/performance.md#verify); 65,536 is four whole row groups of l.lines.
 */
const BATCH_LINES = 4 * LINES_ROW_GROUP_ROWS;

/**
 * Batches judged at once, each on a connection of its own. A batch statement leaves DuckDB's
 * threads idle in its single-threaded steps (small joins' builds, the sort's merge, the part's
 * writing); a second batch fills them: 1M requests in 14.3–14.4 s against 15.7–15.9 s one at a
 * time, 10M in 138 s (docs/performance.md#verify). Three or four at once ran out of DuckDB's
 * 512 MB.
 */
const BATCH_WORKERS = 2;

/**
 * Runs `task(connection, i)` for i = 0 … count - 1, `workers` at once: on the main connection of
 * `db` and on further connections, which `prepare` readies first; each takes the next index
 * when free. When DuckDB runs out of memory with several at once, no new index is started, and
 * those that failed and those not started run afterwards one at a time on the main connection:
 * a run never fails for running two batches side by side where one alone fits. Any other failure
 * is thrown once every connection's statement has finished (the database is never closed under
 * a running statement).
 */
export async function onConnections(db: Pick<SnapshotDb, 'connection' | 'connect'>, workers: number, count: number,
  prepare: (c: DuckDBConnection) => Promise<void>, task: (c: DuckDBConnection, i: number) => Promise<void>): Promise<void> {
  const cons = [db.connection];
  while (cons.length < Math.min(workers, count)) cons.push(await db.connect());
  let next = 0;
  let stop = false;
  const outOfMemory: number[] = [];
  const settled = await Promise.allSettled(cons.map(async (c, k) => {
    if (k > 0) await prepare(c);
    while (!stop && next < count) {
      const i = next++;
      try {
        await task(c, i);
      } catch (err) {
        stop = true;
        if (cons.length === 1 || !isOutOfMemory(err)) throw err;
        outOfMemory.push(i);
      }
    }
  }));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const rest = [...outOfMemory.sort((a, b) => a - b), ...Array.from({ length: count - next }, (_, j) => next + j)];
  for (const i of rest) await task(db.connection, i);
}

/**
 * Keys in the night's record lookup from which the run's own records are cut from it first (see
 * judgeInBatches). A batch's read of the whole lookup costs about 0.018 CPU s per million keys,
 * and splitting each batch in two about 0.25 CPU s: on a 100k-site night (3.7 M keys) the split was
 * slower (100,000 requests 1.17 s against 0.99–1.13 s, 300,000 2.92–2.98 against 2.48–2.50 s), on a
 * 1M-site night (37 M keys) faster (1M requests 14.2–15.8 s against 21.8–22.0 s).
 */
const RUN_RECORDS_FROM_KEYS = 16_000_000;

/**
 * Where the batches of a run of `lines` lines find their records, against a night whose lookup
 * holds `keys`: in the run's own records when the night's are many and more than the run's lines
 * can name (the run's records are then fewer), else in the night's.
 */
export function recordSource(keys: number, lines: number): 'night' | 'run' {
  return keys >= RUN_RECORDS_FROM_KEYS && keys > RECORD_KEYS.length * lines ? 'run' : 'night';
}

/**
 * The lines into a database file of the private folder (in input order: their rowids are the
 * line numbers), then each batch of lines (a range of rowids, which reads only its own row
 * groups) judged into one Parquet part, BATCH_WORKERS at once; the parts, read in order, are the
 * output.
 *
 * Each batch looks its records up among the night's (w.auth_recs) by their keys, which reads the
 * whole lookup: 3.7 M keys for a 100k-site night, 37 M for a 1M-site one, where that read was 40%
 * of a batch's CPU. On such a night (recordSource), the run's own records are cut from the lookup
 * first, in one pass: each batch is read, located and keyed into a table of the private database,
 * the records under all their keys are copied out of the lookup at once (0.85 s for 1M requests
 * against 37 M keys), and then each batch is judged against those alone.
 */
async function judgeInBatches(db: SnapshotDb, source: string, work: string, batchLines: number, records?: 'night' | 'run', signal?: AbortSignal): Promise<string[]> {
  const con = db.connection;
  let t0 = performance.now();
  await con.run(`ATTACH ${sqlString(path.join(work, 'lines.duckdb'))} AS l (ROW_GROUP_SIZE ${LINES_ROW_GROUP_ROWS})`);
  await con.run(`CREATE TABLE l.lines AS ${linesQuery(source)}`);
  timing('lines', t0);
  t0 = performance.now();
  // Input order matters for the lines' rowids and for reading the parts back, not in between:
  // each part is sorted by line_no, and order kept costs memory in every operator.
  await con.run('SET preserve_insertion_order = false');
  const total = Number((await db.rows('SELECT count(*) AS n FROM l.lines'))[0]!.n);
  const batches = Math.max(1, Math.ceil(total / batchLines));
  const parts = Array.from({ length: batches }, (_, i) => path.join(work, `part-${i}.parquet`));
  const range = (i: number): [number, number] => [1 + i * batchLines, (i + 1) * batchLines];
  const prepare = (c: DuckDBConnection) => c.run(REQ_HOST_MACRO).then(() => undefined);
  // A stop between two statements interrupts none: no batch starts after it.
  const write = async (c: DuckDBConnection, query: string, i: number) => {
    signal?.throwIfAborted();
    await c.run(`COPY (${query}) TO ${sqlString(parts[i]!)} (FORMAT parquet, COMPRESSION zstd)`);
  };
  const keys = Number((await db.rows('SELECT count(*) AS n FROM w.auth_recs'))[0]!.n);
  if ((records ?? recordSource(keys, total)) === 'night') {
    await onConnections(db, BATCH_WORKERS, batches, prepare, (c, i) => write(c, batchQuery(...range(i)), i));
    timing(`batches (${batches})`, t0);
  } else {
    // The keyed requests in DuckDB's own tables: Parquet would write the 128-bit keys as DOUBLE.
    const keyed = (i: number) => `l.keyed_${i}`;
    await onConnections(db, BATCH_WORKERS, batches, prepare, async (c, i) => {
      signal?.throwIfAborted();
      await c.run(`CREATE TABLE ${keyed(i)} AS ${keyedQuery(...range(i))}`);
    });
    timing(`batches keyed (${batches})`, t0);
    t0 = performance.now();
    const all = `(${Array.from({ length: batches }, (_, i) => `SELECT * FROM ${keyed(i)}`).join(' UNION ALL ')})`;
    await con.run(`CREATE TABLE l.run_recs AS SELECT * FROM w.auth_recs WHERE k IN (${keysOf(all)})`);
    timing(`the run's records (${keys} keys in the night)`, t0);
    t0 = performance.now();
    await onConnections(db, BATCH_WORKERS, batches, prepare, async (c, i) => {
      await write(c, judgeKeyedQuery(keyed(i), 'l.run_recs'), i);
      await c.run(`DROP TABLE ${keyed(i)}`);
    });
    timing(`batches judged (${batches})`, t0);
  }
  await con.run('SET preserve_insertion_order = true');
  await con.run('DETACH l');
  await con.run('DETACH w');
  return parts;
}

/** The summary counted from `judged` (a table expression: the parts read in order). */
async function summarize(db: SnapshotDb, judged: string, night: string): Promise<Omit<VerifySummary, 'lookups'>> {
  const counts = await db.rows(`SELECT coalesce(error, '') AS error, coalesce("authorization", '') AS verdict,
      CASE WHEN schain_valid THEN 'valid' WHEN NOT schain_valid THEN 'invalid' WHEN schain_complete IS NOT NULL OR len(schain_issues) > 0 THEN 'unknown' ELSE 'absent' END AS schain,
      count(*) AS n FROM ${judged} GROUP BY ALL`);
  const s: Omit<VerifySummary, 'lookups'> = { night, lines: 0, verdicts: {}, errors: {}, schain: { valid: 0, invalid: 0, unknown: 0, absent: 0 } };
  for (const r of counts) {
    const n = Number(r.n);
    s.lines += n;
    if (r.error) s.errors[String(r.error)] = (s.errors[String(r.error)] ?? 0) + n;
    else s.verdicts[String(r.verdict)] = (s.verdicts[String(r.verdict)] ?? 0) + n;
    if (!r.error) s.schain[r.schain as keyof VerifySummary['schain']] += n;
  }
  return s;
}

/**
 * stdin copied to a file in the private folder, bytes only: DuckDB cannot open /dev/stdin when it
 * is a socket (a spawned child's), and the query may read its source more than once.
 */
async function saveStdin(work: string, signal?: AbortSignal): Promise<string> {
  const file = path.join(work, 'stdin.jsonl');
  await pipeline(process.stdin, createWriteStream(file), { signal });
  return file;
}

/**
 * The judged rows (`parts`, Parquet files read in order) in the format asked, to stdout or to
 * --out, which is replaced whole once written (replaceFileFromStream: never seen cut short). Parquet is the parts' pages joined under one footer (sink/parquet-concat.ts), none
 * decoded: DuckDB's COPY from the parts took 2.4 CPU s per million rows; it is the fallback when
 * the parts' footers are not ones the join understands. JSON Lines and CSV are written part by
 * part, BATCH_WORKERS at once (DuckDB writes one text file on one thread: 5.3 s for 1M rows of
 * JSON Lines), then joined byte for byte in order (CSV's header with the first part only).
 */
async function writeOutput(db: SnapshotDb, parts: readonly string[], work: string, o: VerifyOptions): Promise<void> {
  if (o.format === 'parquet') return writeParquet(db, parts, work, o.out, o.signal);
  const texts = parts.map((_, i) => path.join(work, `verified-${i}.${o.format}`));
  await onConnections(db, BATCH_WORKERS, parts.length, async () => {}, async (c, i) => {
    const options = o.format === 'csv' ? `FORMAT csv, HEADER ${i === 0}` : 'FORMAT json';
    await c.run(`COPY (SELECT * FROM read_parquet(${sqlString(parts[i]!)})) TO ${sqlString(texts[i]!)} (${options})`);
  });
  if (o.out === null) return pipeline(concatenated(texts), process.stdout, { end: false, signal: o.signal });
  await replaceFileFromStream(o.out, concatenated(texts), o.signal);
}

/** The parts as one Parquet file, to `out` or stdout: one part as it is, several joined, else through DuckDB. */
async function writeParquet(db: SnapshotDb, parts: readonly string[], work: string, out: string | null, signal?: AbortSignal): Promise<void> {
  const plan = parts.length > 1 ? await concatPlan(parts) : null;
  let file = parts[0]!;
  if (plan === null && parts.length > 1) {
    file = path.join(work, 'verified.parquet');
    await db.connection.run(`COPY (SELECT * FROM read_parquet([${parts.map(sqlString).join(', ')}])) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`);
  }
  const bytes = plan === null ? createReadStream(file) : concatBytes(plan);
  if (out === null) return pipeline(bytes, process.stdout, { end: false, signal });
  await replaceFileFromStream(out, bytes, signal);
}

/** The bytes of `files`, one after the other. */
async function* concatenated(files: readonly string[]): AsyncGenerator<Buffer> {
  for (const f of files) for await (const chunk of createReadStream(f)) yield chunk as Buffer;
}
