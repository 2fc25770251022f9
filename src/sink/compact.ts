/**
 * The reader's layout, made at commit: a crawl writes rows in crawl order into many small parts
 * (one per table per checkpoint, plus side parts of big files); before the commit publishes them,
 * each table's staged parts (first concatenated to at most COMPACT_PARTS_PER_READ of them) are
 * rewritten by DuckDB into one part per table (per range of its first key, for a big table:
 * COMPACT_ROWS_PER_SORT, COMPACT_BYTES_PER_SORT), sorted by its
 * lookup key, in row groups of 122,880 rows. Each row group's min/max statistics then cover a
 * narrow range of subjects (or ad systems), so a query for one of them reads one or two row groups
 * instead of most of them (docs/performance.md, "The next night and the reader's layout").
 *
 * The output is another staged file; the originals stay until the run's staging folder goes, so
 * a kill during compaction is redone from them (run-journal.ts, phase 'compact').
 */
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { tables, type TableName } from '../../schemas/tables.js';
import type { StagedPart } from './writer-options.js';
import { DUCKDB_BASE_CONFIG, withMemoryRetry } from '../util/duckdb-size.js';
import { sqlString, sqlStringList } from '../util/sql-literal.js';
import { inRangeSql, rangeBoundsSql, rangesBetween, type KeyRange } from '../util/key-ranges.js';
import type { DuckDBConnection } from '@duckdb/node-api';

/** Sort keys per table: the columns analysts look rows up by, most selective first. */
export const SORT_KEYS: Partial<Record<TableName, readonly string[]>> = {
  targets: ['target_kind', 'target'],
  fetches: ['subject', 'file_kind', 'url'],
  files: ['subject', 'file_kind'],
  ads_records: ['subject', 'file_kind', 'line_no'],
  ads_variables: ['subject', 'file_kind', 'line_no'],
  parse_issues: ['subject', 'file_kind', 'line_no'],
  hops: ['from_subject', 'from_file_kind', 'kind', 'to_subject'],
  robots_rules: ['host', 'group_no', 'line_no', 'user_agent'],
  robots_sitemaps: ['host', 'line_no'],
  robots_verdicts: ['host', 'user_agent', 'path'],
  robots_agent_access: ['host', 'user_agent'],
  robots_usage_signals: ['host', 'line_no', 'key'],
  agents_catalogue: ['user_agent'],
  apps: ['store_url'],
  sellers: ['ad_system_domain', 'seller_id'],
  sellers_files: ['ad_system_domain'],
  buyers: ['ad_system_domain', 'buyer_id'],
  buyers_files: ['ad_system_domain'],
};

/**
 * DuckDB's memory limit for the steps of a commit (the compaction, the night summary), unless the
 * crawl is given another (`CrawlOptions.commitMemory`; the CLI reads `ADSNAP_COMMIT_MEMORY`).
 * DuckDB spills past it, so a bigger night takes longer, not more memory. Chosen from
 * `npm run bench -- realweb` (docs/performance.md): at 100k sites the process peaked at 474 MB
 * with it (782 MB with 512MB), within the crawl's 500 MB target, and the compaction took 13.6 s
 * instead of about 7 s.
 */
export const DEFAULT_COMMIT_MEMORY = '128MB';


/** DuckDB's default row group size: ≥ 100k rows, so a table of millions has tens of groups. */
export const COMPACT_ROW_GROUP_ROWS = 122_880;

/**
 * And at most this many bytes (as DuckDB holds them) per row group: its Parquet writer holds one
 * per thread, outside its memory limit. The 1M-site night's staged fetches (about 170 bytes a row)
 * copied in groups of 122,880 rows peaked at 321 MB RSS, in groups of at most 16MB (32,518 rows)
 * at 255 MB, and five times faster; its records (71 M rows) kept groups of 122,880 rows
 * (docs/performance.md).
 */
export const COMPACT_ROW_GROUP_BYTES = '16MB';

/**
 * Rows sorted at once: a table with more is sorted one range of its first sort key at a time,
 * into a part per range (the parts in key order, so the night is still sorted). A whole 1M-site
 * night's 71 M records, in the 153 parts its crawl staged them in, did not fit 128MB in ranges of
 * 12 M rows (the commit then did it all again under 256MB, and the night peaked at 821 MB RSS); in
 * ranges of 9 M they fit, spilling, in twice the time of ranges of 6 M (docs/performance.md). A
 * sample sorted earlier had fit 18 M: rows staged in crawl order need smaller ranges.
 */
export const COMPACT_ROWS_PER_SORT = 6_000_000;

/**
 * Bytes sorted at once, counted as the staged parts' uncompressed Parquet size: wide rows fill
 * memory with fewer of them. The same 1M-site night's 4.1 M fetches (703 MB) did not fit 128MB
 * in 11 ranges of 64 MB, and fit, at the limit, in 12; its 2.1 M files (253 MB) did not fit sorted
 * whole. Half of what failed: at 32 MB its records (657 MB, dictionary-encoded, so they take more
 * memory per byte) are sorted in 21 ranges.
 */
export const COMPACT_BYTES_PER_SORT = 32 * 2 ** 20;

export interface CompactOptions {
  stagingDir: string;
  runId: string;
  snapshotDate: string;
  /** DuckDB memory limit (it spills to the staging folder past it; its RSS runs ~1.5× over it). @default DEFAULT_COMMIT_MEMORY */
  memoryLimit?: string;
  /** @default 2 */
  threads?: number;
  /** @default COMPACT_ROWS_PER_SORT */
  rowsPerSort?: number;
  /** @default COMPACT_BYTES_PER_SORT */
  bytesPerSort?: number;
  /** @default COMPACT_PARTS_PER_READ */
  partsPerRead?: number;
}

/**
 * Staged parts read at once. A 1M-site night stages its records in 153 parts, and DuckDB reading
 * them all for each range of the sort peaked at 495 MB RSS under a 128MB limit, in 136 s;
 * concatenated first (unsorted) into 10 parts of at most 16, the two steps peaked at 405–422 MB
 * in 108–112 s (docs/performance.md). A table with more parts is concatenated in groups of this
 * many until it has no more.
 */
export const COMPACT_PARTS_PER_READ = 16;

/**
 * Rewrites the staged parts of every table into one sorted part each (a table of more than
 * `rowsPerSort` rows: one per range of its first sort key, in key order); returns the new staged
 * parts (at least one per table, empty tables included). Deterministic names: a redo overwrites.
 * A table that runs out of DuckDB memory is done again under twice the limit, which then holds for
 * the tables after it; the tables done before it are kept.
 */
export async function compactStaged(staged: readonly StagedPart[], o: CompactOptions): Promise<StagedPart[]> {
  const byTable = new Map<TableName, StagedPart[]>();
  for (const p of staged) {
    let list = byTable.get(p.table);
    if (!list) byTable.set(p.table, (list = []));
    list.push(p);
  }
  // Loaded here, not at module load: a crawl process needs DuckDB only for this step.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  let limit = o.memoryLimit ?? DEFAULT_COMMIT_MEMORY;
  const instance = await DuckDBInstance.create(':memory:', {
    ...DUCKDB_BASE_CONFIG,
    memory_limit: limit,
    threads: String(o.threads ?? 2),
    temp_directory: path.join(o.stagingDir, 'duckdb.tmp'),
    preserve_insertion_order: 'false',
  });
  const con = await instance.connect();
  const out: StagedPart[] = [];
  try {
    for (const [table, parts] of byTable) {
      const done = await withMemoryRetry(
        limit,
        async (l) => {
          if (l !== limit) await con.run(`SET memory_limit = ${sqlString((limit = l))}`);
          return compactTable(con, table, parts, o);
        },
        (next) => process.stderr.write(`adsnap: the compaction of ${table} ran out of DuckDB memory; again with ${next} (ADSNAP_COMMIT_MEMORY sets the first limit)\n`),
      );
      out.push(...done);
    }
  } finally {
    con.closeSync();
    instance.closeSync();
  }
  return out;
}

/** One table's staged parts, concatenated to at most `partsPerRead`, then sorted into one part or one per range. */
async function compactTable(con: DuckDBConnection, table: TableName, staged: readonly StagedPart[], o: CompactOptions): Promise<StagedPart[]> {
  const merged = await concatenated(con, table, staged, o);
  const parts = merged.parts;
  const files = sqlStringList(parts.map((p) => path.join(o.stagingDir, p.file)));
  const from = `read_parquet(${files}, union_by_name = true)`;
  // A table without a declared key is sorted by its first column.
  const keys = (SORT_KEYS[table] ?? [tables[table].columns[0]!.name]).filter((k) => tables[table].columns.some((c) => c.name === k));
  const kv = `{'adsnap.run_id': ${sqlString(o.runId)}, 'adsnap.table': ${sqlString(table)}, 'adsnap.snapshot_date': ${sqlString(o.snapshotDate)}, 'adsnap.layout': 'sorted'}`;
  const ranges = await sortRanges(con, table, keys[0]!, from, await sortsNeeded(con, parts, files, o));
  const out: StagedPart[] = [];
  for (const [i, range] of ranges.entries()) {
    const file = ranges.length === 1 ? `${table}-compact.parquet.staged` : `${table}-compact-${String(i).padStart(3, '0')}.parquet.staged`;
    const dest = path.join(o.stagingDir, file);
    const where = ranges.length === 1 ? '' : `WHERE ${inRangeSql(`"${keys[0]}"`, range, sqlString)}`;
    const written = await con.runAndReadAll(
      `COPY (SELECT * FROM ${from} ${where} ORDER BY ${keys.map((k) => `"${k}"`).join(', ')})
       TO ${sqlString(dest)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${COMPACT_ROW_GROUP_ROWS}, ROW_GROUP_SIZE_BYTES '${COMPACT_ROW_GROUP_BYTES}', KV_METADATA ${kv})`,
    );
    const { size } = await stat(dest);
    out.push({ table, file, rows: Number(written.getRows()[0]![0]), bytes: size });
  }
  // The concatenations are the compaction's own: the staged parts they came from stay for a redo.
  await Promise.all(merged.own.map((p) => rm(path.join(o.stagingDir, p.file), { force: true })));
  return out;
}

/**
 * The staged parts of a table in at most `partsPerRead` parts: groups of that many concatenated
 * into one (in no order: the sort orders them), again while there are more. `own` are the parts
 * written here.
 */
async function concatenated(con: DuckDBConnection, table: TableName, staged: readonly StagedPart[], o: CompactOptions): Promise<{ parts: StagedPart[]; own: StagedPart[] }> {
  const fanIn = Math.max(2, o.partsPerRead ?? COMPACT_PARTS_PER_READ);
  let parts = [...staged];
  const own: StagedPart[] = [];
  for (let round = 0; parts.length > fanIn; round++) {
    const next: StagedPart[] = [];
    for (let i = 0; i < parts.length; i += fanIn) {
      const group = parts.slice(i, i + fanIn);
      const file = `${table}-concat-${round}-${String(next.length).padStart(4, '0')}.parquet.staged`;
      const files = sqlStringList(group.map((p) => path.join(o.stagingDir, p.file)));
      await con.run(`COPY (SELECT * FROM read_parquet(${files}, union_by_name = true)) TO ${sqlString(path.join(o.stagingDir, file))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${COMPACT_ROW_GROUP_ROWS}, ROW_GROUP_SIZE_BYTES '${COMPACT_ROW_GROUP_BYTES}')`);
      next.push({ table, file, rows: group.reduce((n, p) => n + p.rows, 0), bytes: 0 });
    }
    parts = next;
    own.push(...next);
  }
  return { parts, own };
}

/**
 * How many sorts a table's staged parts need: one per `rowsPerSort` rows and per `bytesPerSort`
 * bytes (their uncompressed Parquet size, from the parts' footers), whichever needs more.
 */
async function sortsNeeded(con: DuckDBConnection, parts: readonly StagedPart[], files: string, o: CompactOptions): Promise<number> {
  const rows = parts.reduce((n, p) => n + p.rows, 0);
  const bytes = Number((await con.runAndReadAll(`SELECT coalesce(sum(total_uncompressed_size), 0)::BIGINT FROM parquet_metadata(${files})`)).getRows()[0]![0]);
  return Math.max(Math.ceil(rows / (o.rowsPerSort ?? COMPACT_ROWS_PER_SORT)), Math.ceil(bytes / (o.bytesPerSort ?? COMPACT_BYTES_PER_SORT)));
}

/**
 * The `n` ranges of `key` (a string column) a table read from `from` is sorted in, cut at
 * quantiles of a sample (src/util/key-ranges.ts); the whole table when one sort will do, or when its
 * key is not a string.
 */
async function sortRanges(con: DuckDBConnection, table: TableName, key: string, from: string, n: number): Promise<KeyRange[]> {
  if (n <= 1 || tables[table].columns.find((c) => c.name === key)?.type !== 'string') return [[null, null]];
  const bounds = await con.runAndReadAll(rangeBoundsSql(n, `"${key}"`, from));
  return rangesBetween((bounds.getRowObjectsJS()[0]?.bounds ?? []) as unknown[]);
}
