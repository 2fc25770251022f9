/**
 * `adsnap verify`'s run: the night chosen in the roots, its lookups attached (lookups.ts), the requests judged by
 * DuckDB into Parquet parts in a private temporary folder (the query's one pass over the input,
 * which may be stdin), the summary counted from them, then they are written, in order, in the format asked.
 * DuckDB's memory is capped and it spills (openSnapshotDb's private spill folder), so 10 million lines fit in bounded memory.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSnapshotDb, type SnapshotDb } from '../sql/snapshot-db.js';
import { sqlString } from '../util/sql-literal.js';
import { REQ_HOST_MACRO, linesQuery } from './request-sql.js';
import { attachLookups, type LookupSource } from './lookups.js';
import { batchQuery } from './query.js';

export const VERIFY_FORMATS = ['jsonl', 'csv', 'parquet'] as const;
export type VerifyFormat = (typeof VERIFY_FORMATS)[number];

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
  const db = await openSnapshotDb(o.roots);
  const work = await mkdtemp(path.join(tmpdir(), 'adsnap-verify-'));
  try {
    const night = await chooseNight(db, o.night);
    await db.connection.run(`SET memory_limit = ${sqlString(o.memoryLimit ?? '512MB')}`);
    await db.connection.run('SET preserve_insertion_order = true');
    const lookups = await attachLookups(db, o.roots, night, work);
    await db.connection.run(REQ_HOST_MACRO);
    const source = o.requests === '-' ? await saveStdin(work) : o.requests;
    const parts = await judgeInBatches(db, source, work);
    // The parts read in order are the output: no Parquet file of them all before the one asked for.
    const judged = `read_parquet([${parts.map(sqlString).join(', ')}])`;
    const summary = { ...(await summarize(db, judged, night)), lookups };
    await writeOutput(db, judged, work, o);
    return summary;
  } finally {
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
 * The lines into a database file of the private folder (in input order: their rowids are the
 * line numbers), then each batch of lines (a range of rowids, which reads only its own row
 * groups) judged by one statement into one Parquet part; the parts, read in order, are the output.
 * One batch at a time: two side by side (a connection each, one DuckDB thread each) used less CPU
 * per request, but each batch in flight holds its own memory beyond DuckDB's cap, and two reached
 * 1,008–1,248 MB at 1M requests (docs/performance.md#verify).
 */
async function judgeInBatches(db: SnapshotDb, source: string, work: string): Promise<string[]> {
  const con = db.connection;
  await con.run(`ATTACH ${sqlString(path.join(work, 'lines.duckdb'))} AS l (ROW_GROUP_SIZE ${LINES_ROW_GROUP_ROWS})`);
  await con.run(`CREATE TABLE l.lines AS ${linesQuery(source)}`);
  // Input order matters for the lines' rowids and for reading the parts back, not in between:
  // each part is sorted by line_no, and order kept costs memory in every operator.
  await con.run('SET preserve_insertion_order = false');
  const total = Number((await db.rows('SELECT count(*) AS n FROM l.lines'))[0]!.n);
  const parts: string[] = [];
  for (let first = 1, i = 0; i === 0 || first <= total; first += BATCH_LINES, i++) {
    const part = path.join(work, `part-${i}.parquet`);
    await con.run(`COPY (${batchQuery(first, first + BATCH_LINES - 1)}) TO ${sqlString(part)} (FORMAT parquet, COMPRESSION zstd)`);
    parts.push(part);
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
async function saveStdin(work: string): Promise<string> {
  const file = path.join(work, 'stdin.jsonl');
  await pipeline(process.stdin, createWriteStream(file));
  return file;
}

/**
 * The judged rows (`judged`, a table expression) in the format asked, to --out or to stdout (a
 * file of the private folder streamed, bytes only). Parquet is written there first, then copied.
 */
async function writeOutput(db: SnapshotDb, judged: string, work: string, o: VerifyOptions): Promise<void> {
  if (o.format === 'parquet' && o.out !== null) {
    const file = path.join(work, 'verified.parquet');
    await db.connection.run(`COPY (SELECT * FROM ${judged}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`);
    return copyFile(file, o.out);
  }
  const target = o.out ?? path.join(work, `verified.${o.format}`);
  const options = o.format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT json';
  await db.connection.run(`COPY (SELECT * FROM ${judged}) TO ${sqlString(target)} (${options})`);
  if (o.out === null) await pipeline(createReadStream(target), process.stdout, { end: false });
}
