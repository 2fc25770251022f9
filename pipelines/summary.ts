import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { packageRoot } from '../src/util/package-root.js';

/**
 * Opens DuckDB on a snapshot directory with the shipped views (sql/views.sql) loaded — the same
 * starting point an analyst has — and returns the connection.
 */
export async function openSnapshotDb(outDir: string) {
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  await db.run(`SET VARIABLE adsnap_root = '${outDir.replace(/'/g, "''")}'`);
  const views = await readFile(path.join(packageRoot(), 'sql', 'views.sql'), 'utf8');
  for (const stmt of splitSql(views)) await db.run(stmt);
  return {
    async rows(sql: string): Promise<Record<string, unknown>[]> {
      const reader = await db.runAndReadAll(sql);
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

/** A short human summary of one snapshot: adoption, statuses, top ad systems, hops. */
export async function summarizeSnapshot(outDir: string, snapshotDate: string): Promise<string> {
  const db = await openSnapshotDb(outDir);
  const d = `DATE '${snapshotDate}'`;
  try {
    const out: string[] = [];
    const [adoption] = await db.rows(`
      SELECT count(*) AS domains,
             count(*) FILTER (WHERE has_robots_txt) AS with_robots,
             count(*) FILTER (WHERE ads_txt_status IN ('ok','placeholder','invalid_content_type')) AS with_ads_txt,
             count(*) FILTER (WHERE ads_txt_valid) AS valid_ads_txt,
             sum(ads_txt_records) AS records
      FROM adoption WHERE snapshot_date = ${d}`);
    const a = adoption as Record<string, number>;
    out.push(`Adoption (${snapshotDate}): ${a.domains} domains · robots.txt ${pct(a.with_robots, a.domains)} · ads.txt served ${pct(a.with_ads_txt, a.domains)} · valid ${pct(a.valid_ads_txt, a.domains)} · ${a.records ?? 0} records`);
    out.push('', 'files by kind and status:');
    for (const r of await db.rows(`SELECT file_kind, status, count(*) AS n FROM files WHERE snapshot_date = ${d} GROUP BY ALL ORDER BY file_kind, n DESC`)) {
      out.push(`  ${String(r.file_kind).padEnd(13)} ${String(r.status).padEnd(22)} ${r.n}`);
    }
    out.push('', 'top ad systems (subjects naming them):');
    for (const r of await db.rows(`SELECT ad_system_domain, count(DISTINCT subject) AS subjects, count(*) AS records FROM ads_records WHERE snapshot_date = ${d} GROUP BY 1 ORDER BY subjects DESC, 1 LIMIT 8`)) {
      out.push(`  ${String(r.ad_system_domain).padEnd(28)} ${String(r.subjects).padStart(6)} subjects ${String(r.records).padStart(8)} records`);
    }
    out.push('', 'hops:');
    for (const r of await db.rows(`SELECT kind, outcome, coalesce(reason, '') AS reason, count(*) AS n FROM hops WHERE snapshot_date = ${d} GROUP BY ALL ORDER BY kind, outcome, n DESC`)) {
      out.push(`  ${String(r.kind).padEnd(22)} ${String(r.outcome).padEnd(9)} ${String(r.reason).padEnd(16)} ${r.n}`);
    }
    return out.join('\n');
  } finally {
    db.close();
  }
}

function pct(n: number, total: number): string {
  if (!total) return '0';
  return `${n} (${((100 * n) / total).toFixed(1)}%)`;
}
