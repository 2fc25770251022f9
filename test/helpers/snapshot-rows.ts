import { openSnapshotDb } from '../../src/sql/snapshot-db.js';
import { tables, type ColumnType } from '../../schemas/tables.js';

/** Columns whose values depend on when and how fast a run went, not on what it found. */
export const VOLATILE_COLUMNS = new Set(['started_at', 'duration_ms', 'fetched_at', 'fresh_until', 'remote_ip', 'attempts']);

/**
 * Every table of a snapshot root as sorted JSON rows (optionally without some columns): two
 * snapshots hold the same data exactly when these are equal.
 */
export async function snapshotRows(outDir: string, exclude: ReadonlySet<string> = new Set()): Promise<Record<string, string[]>> {
  const db = await openSnapshotDb(outDir);
  try {
    const result: Record<string, string[]> = {};
    for (const [name, schema] of Object.entries(tables)) {
      const cols = schema.columns.map((c) => c.name).filter((c) => !exclude.has(c));
      const rows = await db.rows(`SELECT ${cols.map((c) => `"${c}"`).join(', ')}, snapshot_date FROM ${name}`);
      result[name] = rows.map((r) => JSON.stringify(r)).sort();
    }
    return result;
  } finally {
    db.close();
  }
}

/** How DuckDB reports each schema type of a column read back from our Parquet. */
export const DUCKDB_TYPE: Record<ColumnType, string> = {
  string: 'VARCHAR',
  int32: 'INTEGER',
  int64: 'BIGINT',
  bool: 'BOOLEAN',
  double: 'DOUBLE',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  'string[]': 'VARCHAR[]',
};
