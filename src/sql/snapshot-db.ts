import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { tables, type ColumnType, type TableName } from '../../schemas/tables.js';
import { packageRoot } from '../util/package-root.js';
import { isDirectory } from '../util/directory.js';
import { visible } from '../text/visible.js';
import { headlineLines, readHeadline } from './headline.js';

/**
 * Opens DuckDB on one snapshot directory, or several read as one, with the shipped views
 * (sql/views.sql) loaded — the same starting point an analyst has — and returns the connection.
 *
 * Every root must hold at least one complete run (a manifest in ROOT/_runs), else this throws an
 * Error naming the root. A table with no parts in a root (a root written by an adsnap version
 * before that table existed) is read from the other roots only, or is an empty view with the
 * table's columns when no root has it, so that the derived views still work.
 */
export async function openSnapshotDb(roots: string | readonly string[], o: { allowEmpty?: boolean } = {}) {
  // A root named twice (or by two spellings of one path) is read once: rows are never doubled.
  const list = typeof roots === 'string' ? [roots] : [...new Map(roots.map((r) => [path.resolve(r), r])).values()];
  if (list.length === 0) throw new Error('no snapshot root given');
  // allowEmpty: an existing directory with no complete run yet opens with empty views (the report says so).
  for (const root of list) if (!(o.allowEmpty && isDirectory(root))) assertSnapshotRoot(root);
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  try {
    if (typeof roots === 'string') await db.run('SET VARIABLE adsnap_root = $1', [roots], [VARCHAR]);
    else await db.run('SET VARIABLE adsnap_roots = $1', [listValue(list)], [LIST(VARCHAR)]);
    // The shipped data tables the views read (ad_system_companies), wherever the package is installed.
    await db.run('SET VARIABLE adsnap_data = $1', [path.join(packageRoot(), 'data')], [VARCHAR]);
    const views = await readFile(path.join(packageRoot(), 'sql', 'views.sql'), 'utf8');
    for (const stmt of splitSql(views)) {
      try {
        await db.run(stmt);
      } catch (err) {
        const replacement = await viewForMissingParts(db, list, stmt, err);
        if (replacement === null) throw err;
        await db.run(replacement);
      }
    }
  } catch (err) {
    db.closeSync();
    instance.closeSync();
    throw err;
  }
  return {
    /** The DuckDB connection, for callers that want typed results or streaming. */
    connection: db,
    /** `params`: values bound to `$1`, `$2`, … (never spliced into the SQL text). */
    async rows(sql: string, params?: (string | number | boolean | null)[]): Promise<Record<string, unknown>[]> {
      const reader = params ? await db.runAndReadAll(sql, params) : await db.runAndReadAll(sql);
      // Counts come back as BIGINT; summaries want plain numbers.
      return (reader.getRowObjectsJS() as Record<string, unknown>[]).map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
      );
    },
    close() {
      db.closeSync();
      instance.closeSync();
    },
  };
}

/** A snapshot opened by openSnapshotDb. */
export type SnapshotDb = Awaited<ReturnType<typeof openSnapshotDb>>;

/** A SQL string literal: the text in single quotes, each single quote doubled. */
export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** Throws unless ROOT holds at least one run manifest (ROOT/_runs/*.json): a complete run. */
function assertSnapshotRoot(root: string): void {
  let manifests: string[] = [];
  try {
    manifests = readdirSync(path.join(root, '_runs')).filter((f) => f.endsWith('.json'));
  } catch {
    // No _runs folder (or no root at all): said below.
  }
  if (manifests.length > 0) return;
  let why = '';
  try {
    if (!statSync(root).isDirectory()) why = ': not a directory';
  } catch {
    why = ': no such directory';
  }
  throw new Error(`no complete snapshot under ${root} (no run manifest in ${path.join(root, '_runs')})${why}`);
}

const DUCKDB_TYPES: Record<ColumnType, string> = {
  string: 'VARCHAR',
  int32: 'INTEGER',
  int64: 'BIGINT',
  bool: 'BOOLEAN',
  double: 'DOUBLE',
  timestamp: 'TIMESTAMPTZ',
  'string[]': 'VARCHAR[]',
};

/**
 * When a table view of views.sql fails because some root has no parts for that table (DuckDB:
 * "No files found"), the view to create instead: the same statement over the roots that have
 * parts, or an empty view with the table's columns (schemas/tables.ts) and `snapshot_date` when
 * none has. Null for any other failure.
 */
async function viewForMissingParts(db: DuckDBConnection, roots: string[], stmt: string, err: unknown): Promise<string | null> {
  if (!/No files found/i.test((err as Error)?.message ?? '')) return null;
  // A root without a run manifest (opened with allowEmpty) lists no part: the manifests of the others are read.
  if (/^CREATE\s+(?:OR\s+REPLACE\s+)?MACRO\s+adsnap_parts\b/i.test(stmt)) {
    const withRuns = await rootsWithFiles(db, roots, '_runs/*.json');
    if (withRuns.length === 0) return `CREATE OR REPLACE MACRO adsnap_parts(t) AS TABLE SELECT CAST(NULL AS VARCHAR) AS file WHERE false`;
    return overRoots(stmt, withRuns);
  }
  const name = /^CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+("?)(\w+)\1\s+AS\b/i.exec(stmt)?.[2];
  if (name === undefined || !Object.hasOwn(tables, name)) return null;
  const withParts = await rootsWithFiles(db, roots, `${name}/*/*.parquet`);
  if (withParts.length === 0) {
    const columns = tables[name as TableName].columns.map((c) => `CAST(NULL AS ${DUCKDB_TYPES[c.type]}) AS "${c.name}"`);
    return `CREATE OR REPLACE VIEW ${name} AS SELECT ${[...columns, 'CAST(NULL AS DATE) AS snapshot_date'].join(', ')} WHERE false`;
  }
  if (withParts.length === roots.length || !stmt.includes('adsnap_roots()')) return null;
  return overRoots(stmt, withParts);
}

/** The roots holding at least one file that matches ROOT/`pattern` (a glob). */
async function rootsWithFiles(db: DuckDBConnection, roots: readonly string[], pattern: string): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    const reader = await db.runAndReadAll('SELECT count(*) AS n FROM glob($1)', [`${root.replace(/\/+$/, '')}/${pattern}`], [VARCHAR]);
    if (Number(reader.getRowsJS()[0]?.[0] ?? 0) > 0) out.push(root);
  }
  return out;
}

/** `stmt` read over `roots` only: its adsnap_roots() replaced by their list. */
function overRoots(stmt: string, roots: readonly string[]): string {
  return stmt.replaceAll('adsnap_roots()', `list_transform([${roots.map(sqlString).join(', ')}], r -> rtrim(r, '/'))`);
}

/** Splits a SQL script on statement-ending semicolons, dropping `--` comments. */
export function splitSql(script: string): string[] {
  const noComments = script
    .split('\n')
    .map((l) => (l.trimStart().startsWith('--') ? '' : l))
    .join('\n');
  return noComments
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * A short human summary of one snapshot: the headline figures (in the report's words,
 * src/sql/headline.ts), files by status, the ad systems named by most declaring sites, hops.
 * Every value is bound as a parameter.
 */
export async function summarizeSnapshot(outDir: string, snapshotDate: string): Promise<string> {
  const db = await openSnapshotDb(outDir);
  const night = [snapshotDate];
  try {
    const [listed] = await db.rows(
      `SELECT (SELECT count(*) FROM listed_sites WHERE snapshot_date = CAST($1 AS DATE)) AS sites,
              (SELECT count(*) FROM listed_apps WHERE snapshot_date = CAST($1 AS DATE)) AS apps`,
      night,
    );
    const out: string[] = [`Headline figures (${snapshotDate}; ${listed?.sites ?? 0} listed sites, ${listed?.apps ?? 0} listed apps; docs/reference/figures.md):`];
    out.push(...headlineLines(await readHeadline(db.connection, snapshotDate)));
    out.push('', 'files by kind and status:');
    for (const r of await db.rows(`SELECT file_kind, status, count(*) AS n FROM files WHERE snapshot_date = CAST($1 AS DATE) GROUP BY ALL ORDER BY file_kind, n DESC, status`, night)) {
      out.push(`  ${String(r.file_kind).padEnd(13)} ${String(r.status).padEnd(22)} ${r.n}`);
    }
    out.push('', 'top ad systems (declaring listed sites naming them in their root ads.txt; view ad_system_sites):');
    const top = await db.rows(
      `SELECT ad_system_domain, sites, sites_direct, site_share, records FROM ad_system_sites WHERE snapshot_date = CAST($1 AS DATE) ORDER BY sites DESC, records DESC, ad_system_domain LIMIT 8`,
      night,
    );
    for (const r of top) {
      const share = `${(100 * Number(r.site_share)).toFixed(1)}%`;
      // The ad system as the file wrote it: shown, never obeyed, on a terminal (text/visible.ts).
      out.push(`  ${visible(String(r.ad_system_domain)).padEnd(28)} ${String(r.sites).padStart(6)} sites (${share.padStart(6)}) ${String(r.sites_direct).padStart(6)} DIRECT ${String(r.records).padStart(8)} records`);
    }
    out.push('', 'hops:');
    for (const r of await db.rows(`SELECT kind, outcome, coalesce(reason, '') AS reason, count(*) AS n FROM hops WHERE snapshot_date = CAST($1 AS DATE) GROUP BY ALL ORDER BY kind, outcome, n DESC`, night)) {
      out.push(`  ${String(r.kind).padEnd(22)} ${String(r.outcome).padEnd(9)} ${String(r.reason).padEnd(16)} ${r.n}`);
    }
    return out.join('\n');
  } finally {
    db.close();
  }
}
