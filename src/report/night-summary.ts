/**
 * The night summary: the figures over time that would otherwise read every record of
 * every night (`consistency.over_time` through the seller_match view, `pooling.over_time`),
 * computed once per night when the night is committed, and kept in its run manifest under
 * `night_summary`. The report reads a night's row from there, and from the views for any night
 * whose summary it cannot trust:
 *
 * - a summary is written only when its run is the only run of its night in its root (a night in
 *   several runs — shards, a re-crawl — has none), and the report uses it only when exactly one
 *   manifest of the roots it reads names that night: the summary covers every row the views see;
 * - it carries a key: a digest of sql/views.sql and of the summary's own SQL. A view or a figure
 *   that changes meaning changes the key, and the older summaries are ignored (nothing stale);
 * - its run id and snapshot date must be its manifest's (a manifest copied to another night
 *   does not bring its numbers along);
 * - `adsnap reparse` writes a new run, whose summary is computed again from the rebuilt tables;
 *   a run committed before summaries existed has none, and the views answer for it.
 * Each figure's SQL (figures.ts) is the union of the two: the summary's rows and the view's rows
 * for the nights `report_viewed(d)` names, so that `adsnap sql` reproduces it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { openSnapshotDb } from '../sql/snapshot-db.js';
import { createOwnerTable, OWNER_TABLE } from './owners.js';
import { writeRunManifest } from '../sink/index.js';
import { completedRuns } from '../store/run-manifests.js';
import { packageRoot } from '../util/package-root.js';

/** A filter on a table alias's `snapshot_date` (a night, or the report's window). */
export type NightFilter = (column: string) => string;

/**
 * Per night, every root record of a valid file (the listed sites' own ads.txt: view file_scope_base,
 * scope 'root'; referral and app files are scopes of their own; the placeholder left out) against the ad system's
 * sellers.json (view seller_match): checkable (seller_checkable: its sellers.json was readable),
 * missing, relationship and owner mismatches.
 */
export function consistencyNightsSql(nights: NightFilter): string {
  return `SELECT m.snapshot_date, count(*) AS records,
    count(*) FILTER (WHERE m.seller_checkable) AS checkable,
    count(*) FILTER (WHERE m.seller_missing) AS missing,
    count(*) FILTER (WHERE m.relationship_consistent = false) AS relationship_mismatch,
    count(*) FILTER (WHERE m.owner_domain_consistent = false) AS owner_mismatch
  FROM seller_match m
  SEMI JOIN file_scope_base s ON s.snapshot_date = m.snapshot_date AND s.subject = m.subject AND s.file_kind = m.file_kind AND s.scope = 'root'
  WHERE ${nights('m.snapshot_date')} AND NOT coalesce(adsnap_is_placeholder(m.ad_system_domain, m.seller_account_id), false)
  GROUP BY ALL`;
}

/**
 * Per night, the (ad system, seller id) pairs claimed DIRECT by two or more owners, and the
 * records claiming them: seller_match's records of valid files and owner_domain (the first
 * OWNERDOMAIN of the file, else its subject), without the view's sellers.json joins, each owner
 * reduced to its registrable domain through the table of owners.ts (grouped by the owner as
 * written first, so the reduction is joined once per claim, not per record).
 */
export function poolingNightsSql(nights: NightFilter): string {
  return `WITH owner AS (
  SELECT snapshot_date, subject, file_kind, arg_min(value_domain, line_no) AS owner_domain
  FROM ads_variables WHERE ${nights('snapshot_date')} AND name = 'OWNERDOMAIN' GROUP BY ALL
), written AS (
  SELECT r.snapshot_date, r.ad_system_domain, r.seller_account_id, coalesce(o.owner_domain, r.subject) AS owner_domain, count(*) AS records
  FROM ads_records r
  JOIN files f ON f.snapshot_date = r.snapshot_date AND f.subject = r.subject AND f.file_kind = r.file_kind AND f.valid
  LEFT JOIN owner o ON o.snapshot_date = r.snapshot_date AND o.subject = r.subject AND o.file_kind = r.file_kind
  WHERE ${nights('r.snapshot_date')} AND r.relationship = 'DIRECT'
  GROUP BY ALL
), claims AS (
  SELECT w.snapshot_date, w.ad_system_domain, w.seller_account_id, coalesce(d.owner_domain, w.owner_domain) AS owner_domain, sum(w.records) AS records
  FROM written w LEFT JOIN ${OWNER_TABLE} d ON d.owner = w.owner_domain
  GROUP BY ALL
), pooled AS (
  SELECT snapshot_date, ad_system_domain, seller_account_id, sum(records) AS records
  FROM claims GROUP BY ALL HAVING count(*) >= 2
)
SELECT snapshot_date, count(*) AS pooled_ids, sum(records)::BIGINT AS records FROM pooled GROUP BY ALL`;
}

const CONSISTENCY = ['records', 'checkable', 'missing', 'relationship_mismatch', 'owner_mismatch'] as const;
const POOLING = ['pooled_ids', 'records'] as const;

export interface NightSummary {
  /** summaryKey() when it was computed. */
  key: string;
  run_id: string;
  snapshot_date: string;
  consistency: Record<(typeof CONSISTENCY)[number], number>;
  pooling: Record<(typeof POOLING)[number], number>;
  /** Time the summary took (s). */
  seconds: number;
}

let cachedKey: string | null = null;

/** The digest of sql/views.sql and of the summary's SQL: what a summary's numbers depend on. */
export function summaryKey(): string {
  if (cachedKey) return cachedKey;
  const views = readFileSync(path.join(packageRoot(), 'sql', 'views.sql'), 'utf8');
  const night: NightFilter = (c) => `${c} = $night`;
  // v2: owners are registrable domains (owners.ts), a reduction that is not in the SQL's text.
  const h = createHash('sha256').update('night_summary v2\n').update(views).update(consistencyNightsSql(night)).update(poolingNightsSql(night));
  return (cachedKey = h.digest('hex').slice(0, 32));
}

/**
 * Computes the night summary of run `runId` in `root` and writes it into the run's manifest.
 * Returns null (and writes nothing) when the run is not the only complete run of its night in
 * the root, or its manifest cannot be read.
 */
export async function writeNightSummary(root: string, runId: string, o: { memoryLimit?: string } = {}): Promise<NightSummary | null> {
  const runs = await completedRuns(root);
  const run = runs.find((r) => r.runId === runId);
  if (!run || runs.filter((r) => r.snapshotDate === run.snapshotDate).length !== 1) return null;
  const manifest = JSON.parse(await readFile(run.manifestPath, 'utf8')) as Record<string, unknown>;
  if (manifest.run_id !== undefined && manifest.run_id !== runId) return null;
  const t0 = performance.now();
  const db = await openSnapshotDb(root);
  let summary: NightSummary;
  try {
    await db.rows(`SET memory_limit = $1`, [o.memoryLimit ?? '512MB']);
    await db.rows(`SET preserve_insertion_order = false`);
    // The night is bound once, into a variable the SQL reads: no value is spliced into the text.
    await db.rows(`SET VARIABLE adsnap_summary_night = CAST($1 AS DATE)`, [run.snapshotDate]);
    const night: NightFilter = (c) => `${c} = getvariable('adsnap_summary_night')`;
    const [c] = await db.rows(consistencyNightsSql(night));
    await createOwnerTable(db.connection, night);
    const [p] = await db.rows(poolingNightsSql(night));
    summary = {
      key: summaryKey(),
      run_id: runId,
      snapshot_date: run.snapshotDate,
      consistency: Object.fromEntries(CONSISTENCY.map((k) => [k, Number(c?.[k] ?? 0)])) as NightSummary['consistency'],
      pooling: Object.fromEntries(POOLING.map((k) => [k, Number(p?.[k] ?? 0)])) as NightSummary['pooling'],
      seconds: Math.round(performance.now() - t0) / 1000,
    };
  } finally {
    db.close();
  }
  await writeRunManifest(root, runId, { ...manifest, night_summary: summary });
  return summary;
}

/**
 * The report's statement that collects the summaries it may use (see the top of this file) into
 * the temp table `report_night_summary`, one row per night of the window. It reads summaryKey()
 * from the variable `report_summary_key`.
 */
export function nightSummarySetupSql(): string {
  const n = (k: string, as = k) => `TRY_CAST(json_extract_string(s, '$.${k}') AS BIGINT) AS ${as}`;
  const values = [...CONSISTENCY.map((k) => n(`consistency.${k}`, k)), n('pooling.pooled_ids', 'pooled_ids'), n('pooling.records', 'pooled_records')];
  return `CREATE OR REPLACE TEMP TABLE report_night_summary AS
SELECT * FROM (
  SELECT snapshot_date, ${values.join(', ')}
  FROM (
    -- One manifest per night, over every root; a run's id is its file's name when it names none.
    SELECT TRY_CAST(snapshot_date AS DATE) AS snapshot_date, any_value(coalesce(run_id, regexp_extract(filename, '([^/]*)\\.json$', 1))) AS run_id, any_value(night_summary) AS s
    FROM read_json(list_transform(adsnap_roots(), r -> r || '/_runs/*.json'), columns = {run_id: 'VARCHAR', snapshot_date: 'VARCHAR', night_summary: 'JSON'}, filename = true)
    GROUP BY 1 HAVING count(*) = 1
  )
  WHERE in_window(snapshot_date) AND json_extract_string(s, '$.key') = getvariable('report_summary_key') AND json_extract_string(s, '$.run_id') = run_id
    AND json_extract_string(s, '$.snapshot_date') = strftime(snapshot_date, '%Y-%m-%d')
)
WHERE COLUMNS(* EXCLUDE (snapshot_date)) IS NOT NULL`;
}

/** `report_night_summary` with no night: what the report uses when the manifests cannot be read so. */
export const NO_NIGHT_SUMMARY = `CREATE OR REPLACE TEMP TABLE report_night_summary AS
SELECT NULL::DATE AS snapshot_date, ${[...CONSISTENCY, 'pooled_ids', 'pooled_records'].map((k) => `NULL::BIGINT AS ${k}`).join(', ')} WHERE false`;

/** The macro naming the nights of the window without a usable summary (the variable report_viewed_nights, DATE[]): the views answer for them. */
export const VIEWED_NIGHTS_MACRO = `CREATE OR REPLACE MACRO report_viewed(d) AS list_contains(getvariable('report_viewed_nights'), d)`;
