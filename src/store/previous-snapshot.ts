/**
 * The earlier snapshot an incremental run builds on (docs/guide/nightly.md#incremental-snapshots): for each (subject, file kind),
 * what it found — URL, status, body hash, validators for a conditional request, when it was
 * fetched and until when it is fresh — and whether its body is still in the body store.
 *
 * At open, DuckDB reads the `files` parts of the snapshot's completed runs (and, for snapshots
 * written before `files` had validators, the `fetches` rows that produced them), keeps the latest
 * row per key `'<file kind> <subject>'` and streams them out, the other columns packed in one JSON
 * array, into a compact hash-indexed map (keyed-payloads.ts); DuckDB is then closed. A lookup is a
 * binary search per key: its cost does not grow with the snapshot, unlike a DuckDB join per batch,
 * which scans the whole table each time (bench/previous: 13–33 µs/key at 100k rows, 65 µs at 1M).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BodyStore, bodiesDir } from './body-store.js';
import { KeyedPayloads, KeyedPayloadsBuilder } from './keyed-payloads.js';
import { completedRuns } from './run-manifests.js';
import { DUCKDB_BASE_CONFIG } from '../util/duckdb-size.js';

export { completedRuns, findPreviousSnapshot, type CompletedRun } from './run-manifests.js';

export interface PreviousFile {
  subject: string;
  fileKind: string;
  url: string | null;
  status: string;
  httpStatus: number | null;
  sha256: string | null;
  etag: string | null;
  lastModified: string | null;
  contentType: string | null;
  fetchedAt: Date | null;
  freshUntil: Date | null;
  /** Body bytes (null for snapshots that did not record them). */
  bytes: number | null;
  /** The body was cut at the byte cap (status `too_large`): read again, it is still cut. */
  truncated: boolean;
  /** The body (by sha256) is present in the snapshot root's body store. */
  hasBody: boolean;
}

export interface PreviousSnapshotOptions {
  /** DuckDB memory limit while loading. @default '1GB' */
  memoryLimit?: string;
  /** DuckDB worker threads. @default 2 */
  threads?: number;
  /** Check each found body's presence in `DIR/_bodies` (PreviousFile.hasBody). @default true */
  checkBodies?: boolean;
}

/** The key lookups answer under: `${fileKind} ${subject}`. */
export function previousKey(fileKind: string, subject: string): string {
  return `${fileKind} ${subject}`;
}

export class PreviousSnapshot {
  private closed = false;

  private constructor(
    readonly dir: string,
    readonly snapshotDate: string,
    private index: KeyedPayloads,
    private readonly bodies: BodyStore | null,
  ) {}

  /** Loads snapshot `snapshotDate` of `dir` (its completed runs only). Throws when it has none. */
  static async open(dir: string, snapshotDate: string, options: PreviousSnapshotOptions = {}): Promise<PreviousSnapshot> {
    const runs = (await completedRuns(dir)).filter((r) => r.snapshotDate === snapshotDate);
    if (runs.length === 0) throw new Error(`no completed run for snapshot ${snapshotDate} in ${dir}`);
    const filesParts = [...new Set(runs.flatMap((r) => r.parts.files ?? []))];
    const fetchesParts = [...new Set(runs.flatMap((r) => r.parts.fetches ?? []))];
    const threads = options.threads ?? 2;
    if (!Number.isInteger(threads) || threads < 1) throw new TypeError(`threads must be a positive integer, got ${threads}`);
    // Loaded here, not at module load: DuckDB's native library adds ~35 MB of RSS to every crawl
    // process, and a first run (no earlier snapshot) never needs it.
    const { DuckDBInstance, LIST, VARCHAR, listValue } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:', { ...DUCKDB_BASE_CONFIG, memory_limit: options.memoryLimit ?? '1GB', threads: String(threads) });
    const con = await instance.connect();
    let index: KeyedPayloads;
    try {
      // The part lists are bound, never spliced into the SQL text.
      await con.run('SET VARIABLE adsnap_files_parts = $1', [listValue(filesParts)], [LIST(VARCHAR)]);
      await con.run('SET VARIABLE adsnap_fetches_parts = $1', [listValue(fetchesParts)], [LIST(VARCHAR)]);
      const filesCols = await columnsOf(con);
      const builder = new KeyedPayloadsBuilder();
      const result = await con.stream(loadSql(filesCols, fetchesParts.length > 0));
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        const [keys, payloads] = chunk.getColumns() as [string[], string[]];
        for (let i = 0; i < keys.length; i++) builder.add(keys[i]!, payloads[i]!);
      }
      index = builder.build();
    } finally {
      con.closeSync();
      instance.closeSync();
    }
    const bodies = options.checkBodies === false ? null : new BodyStore(bodiesDir(dir));
    return new PreviousSnapshot(dir, snapshotDate, index, bodies);
  }

  /** Rows (distinct file kind × subject) loaded. */
  get rows(): number {
    return this.index.size;
  }

  /** What the earlier snapshot has for each key asked; keys it lacks are absent from the map. */
  async lookup(keys: readonly { subject: string; fileKind: string }[]): Promise<Map<string, PreviousFile>> {
    if (this.closed) throw new Error('previous snapshot is closed');
    const out = new Map<string, PreviousFile>();
    for (const k of keys) {
      const key = previousKey(k.fileKind, k.subject);
      if (out.has(key)) continue;
      const payload = this.index.get(key);
      if (payload !== null) out.set(key, decode(k.subject, k.fileKind, JSON.parse(payload) as (string | null)[]));
    }
    if (this.bodies) {
      const store = this.bodies;
      for (const f of out.values()) f.hasBody = f.sha256 !== null && store.hasSync(f.sha256);
    }
    return out;
  }

  /** Bytes the loaded snapshot holds in memory. */
  memoryBytes(): number {
    return this.index.bytes;
  }

  /** Lookups end; the index's memory goes with it (rows and bytes then read 0). */
  close(): void {
    this.closed = true;
    this.index = new KeyedPayloads([], new Uint32Array(0), new Float64Array(0), new Uint32Array(0));
  }
}

/** Column names of the `files` parts read together (DuckDB union_by_name). */
async function columnsOf(con: DuckDBConnection): Promise<Set<string>> {
  const r = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(getvariable('adsnap_files_parts'), union_by_name = true)`);
  return new Set(r.getRows().map((row) => String(row[0])));
}

// Payload positions, shared by loadSql and decode.
const PAYLOAD = ['url', 'status', 'http_status', 'sha256', 'etag', 'last_modified', 'content_type', 'fetched_us', 'fresh_us', 'bytes'] as const;

/**
 * The load: the latest `files` row per (file kind, subject) — several runs may share a date —
 * plus `store_page` rows from `fetches` (store pages have no `files` row; keyed by the app key
 * the crawl gave as the fetch subject). When `files` predates its validator columns, etag,
 * last_modified and fetched_at come from the latest successful fetch whose final URL is the
 * file's URL, and fresh_until stays null.
 */
function loadSql(cols: Set<string>, withFetches: boolean): string {
  const col = (name: string, type: string) => (cols.has(name) ? name : `NULL::${type}`);
  const needFetches = !cols.has('etag') || !cols.has('last_modified') || !cols.has('fetched_at');
  const joinFetches = needFetches && withFetches;
  const f = `f AS (
    SELECT subject, file_kind, url, status, http_status::INTEGER AS http_status, sha256, ${col('content_type', 'VARCHAR')} AS content_type, ${col('bytes', 'BIGINT')} AS bytes,
           ${col('fetched_at', 'TIMESTAMP')} AS fetched_at, ${col('etag', 'VARCHAR')} AS etag,
           ${col('last_modified', 'VARCHAR')} AS last_modified, ${col('fresh_until', 'TIMESTAMP')} AS fresh_until
    FROM read_parquet(getvariable('adsnap_files_parts'), union_by_name = true, filename = true)
    QUALIFY row_number() OVER (PARTITION BY file_kind, subject ORDER BY fetched_at DESC NULLS LAST, filename DESC) = 1)`;
  const x = `x AS (
    SELECT final_url, etag, last_modified, started_at
    FROM read_parquet(getvariable('adsnap_fetches_parts'), union_by_name = true)
    WHERE final_url IS NOT NULL AND (status_code BETWEEN 200 AND 299 OR status_code = 304)
    QUALIFY row_number() OVER (PARTITION BY final_url ORDER BY started_at DESC) = 1)`;
  const s = `s AS (
    SELECT subject, 'store_page' AS file_kind, final_url AS url,
           CASE WHEN status_code BETWEEN 200 AND 299 THEN 'ok' WHEN status_code = 304 THEN 'not_modified'
                WHEN status_code = 404 THEN 'not_found' WHEN status_code IS NULL THEN 'unreachable' ELSE 'http_error' END AS status,
           status_code::INTEGER AS http_status, sha256, content_type, bytes, started_at AS fetched_at, etag, last_modified, NULL::TIMESTAMP AS fresh_until
    FROM read_parquet(getvariable('adsnap_fetches_parts'), union_by_name = true)
    WHERE file_kind = 'store_page' AND subject IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY subject ORDER BY started_at DESC) = 1)`;
  const merged = joinFetches
    ? `SELECT f.subject, f.file_kind, f.url, f.status, f.http_status, f.sha256, f.content_type, f.bytes,
              coalesce(f.fetched_at, x.started_at) AS fetched_at, coalesce(f.etag, x.etag) AS etag,
              coalesce(f.last_modified, x.last_modified) AS last_modified, f.fresh_until
       FROM f LEFT JOIN x ON x.final_url = f.url`
    : `SELECT subject, file_kind, url, status, http_status, sha256, content_type, bytes, fetched_at, etag, last_modified, fresh_until FROM f`;
  const all = withFetches ? `${merged} UNION ALL BY NAME SELECT * FROM s` : merged;
  const payload = `to_json([url, status, http_status::VARCHAR, sha256, etag, last_modified, content_type, epoch_us(fetched_at)::VARCHAR, epoch_us(fresh_until)::VARCHAR, bytes::VARCHAR])::VARCHAR`;
  const ctes = [f, ...(joinFetches ? [x] : []), ...(withFetches ? [s] : [])].join(',\n');
  return `WITH ${ctes}
    SELECT file_kind || ' ' || subject AS key, ${payload} AS payload FROM (${all})`;
}

function decode(subject: string, fileKind: string, p: (string | null)[]): PreviousFile {
  const at = (i: number) => p[i] ?? null;
  const time = (i: number) => (p[i] === null || p[i] === undefined ? null : new Date(Number(p[i]) / 1000));
  const hs = at(PAYLOAD.indexOf('http_status'));
  const bytes = at(PAYLOAD.indexOf('bytes'));
  const status = at(PAYLOAD.indexOf('status')) ?? 'unknown';
  return {
    subject,
    fileKind,
    url: at(PAYLOAD.indexOf('url')),
    status,
    httpStatus: hs === null ? null : Number(hs),
    sha256: at(PAYLOAD.indexOf('sha256')),
    etag: at(PAYLOAD.indexOf('etag')),
    lastModified: at(PAYLOAD.indexOf('last_modified')),
    contentType: at(PAYLOAD.indexOf('content_type')),
    fetchedAt: time(PAYLOAD.indexOf('fetched_us')),
    freshUntil: time(PAYLOAD.indexOf('fresh_us')),
    bytes: bytes === null ? null : Number(bytes),
    truncated: status === 'too_large',
    hasBody: false,
  };
}
