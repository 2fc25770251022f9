/**
 * The vocabulary materialized per night (docs/reference/derived.md): the rows of the figure views
 * of sql/views.sql for one night, written as Parquet beside the base tables by the commit,
 * `adsnap reparse` and `adsnap derive` (src/report/derived.ts writes them), and read here, by
 * openSnapshotDb, in place of the definitions for the nights that have a current set.
 *
 * Layout, per root:
 *   _derived/<table>/snapshot_date=<night>/<set>.parquet   one part per table and set
 *   _derived/_nights/<night>.json                            the night's marker, written last
 * A set is current when its marker carries derivedKey() (a digest of sql/views.sql and of the SQL
 * below: a definition that changes meaning changes the key) and names exactly the complete runs
 * the root holds for that night (a night crawled again, or a run copied in, makes it stale), and
 * every part it names exists. A night held by runs in two roots read together is never read from
 * a set (each set covers one root's runs). Anything else is read from the definitions.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { completedRuns } from '../store/run-manifests.js';
import { packageRoot } from '../util/package-root.js';
import { sqlString } from '../util/sql-literal.js';
import { isCalendarDate } from '../util/calendar-date.js';

/** A filter on a table alias's `snapshot_date` (a night, or the report's window). */
export type NightFilter = (column: string) => string;

/** The temporary table of owners as written → registrable domains (src/report/owners.ts fills it). */
export const OWNER_TABLE = 'report_owner_domain';

/** The night a derivation reads, as the SQL below writes it; nightSql() puts the night's date in its place. */
const NIGHT = `getvariable('adsnap_derive_night')`;

/**
 * A derived table's SQL for `night` (YYYY-MM-DD): the date as a constant, which DuckDB folds into
 * each scan's partition filter, so only that night's partitions are read (a filter it cannot fold
 * read every night of the root: issue 34).
 */
export function nightSql(t: DerivedTable, night: string): string {
  if (!isCalendarDate(night)) throw new TypeError(`a night is YYYY-MM-DD, got ${JSON.stringify(night)}`);
  return t.sql.replaceAll(NIGHT, `DATE '${night}'`);
}

/**
 * Per night, the (ad system, seller id) pairs claimed DIRECT by two or more owners, and the
 * records claiming them: the DIRECT records of valid files (ads.txt and app-ads.txt) and the
 * file's owner (its first OWNERDOMAIN, view file_owner_domains; else its subject) reduced to its
 * registrable domain through OWNER_TABLE (grouped by the owner as written first, so the reduction
 * is joined once per claim).
 */
export function poolingNightsSql(nights: NightFilter): string {
  return `WITH owner AS (
  SELECT snapshot_date, subject, file_kind, owner_domain FROM file_owner_domains WHERE ${nights('snapshot_date')}
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

/** A derived table: its name, the public view (or table macro) it stands in for, and one night's rows. */
export interface DerivedTable {
  name: string;
  /**
   * The view the rows are read through (null: only the derived rows are read, night_summary). A
   * name ending in `_at` is a table macro of a night, `X_at(night)`, defined by `X_defined_at`.
   */
  view: string | null;
  sql: string;
  /** For a macro: NULL as its night means every night (headline_figures_at), rather than none. */
  nullNightIsEvery?: boolean;
}

/** A table macro of one night (`view` ends in `_at`), its rows derived from `X_defined_at(night)`. */
const fromMacro = (name: string, view: string, nullNightIsEvery: boolean): DerivedTable => ({
  name, view, nullNightIsEvery, sql: `SELECT * FROM ${definedAt(view)}(${NIGHT})`,
});

/** The definition of a night's table macro: `X_at` → `X_defined_at`. */
export const definedAt = (macro: string): string => macro.replace(/_at$/, '_defined_at');

const fromView = (view: string): DerivedTable => ({ name: view, view, sql: `SELECT * FROM ${view}_defined WHERE snapshot_date = ${NIGHT}` });

/** Every derived table, in the order they are written. */
export const DERIVED_TABLES: readonly DerivedTable[] = [
  fromView('file_scopes'),
  fromView('listed_sites'),
  fromView('listed_apps'),
  fromView('ad_system_sites'),
  fromView('ad_company_sites'),
  fromView('ad_system_seller_checks'),
  fromView('parse_issue_counts'),
  fromView('scope_relationships'),
  fromView('agent_access_shares'),
  fromView('ai_crawler_blocking'),
  fromView('ai_crawler_blocking_by_purpose'),
  fromView('ai_crawler_blocking_by_operator'),
  fromMacro('headline_figures', 'headline_figures_at', true),
  // Section 11's verdicts counted: authorization_at over every record of the night is the
  // report's costliest step when computed at report time (93.1 s of 141.1 s at 300k sites).
  fromMacro('authorization_counts', 'authorization_counts_at', false),
  // The night summary: the pooled seller ids of the night (a night with none has a row of zeros).
  {
    name: 'night_summary',
    view: null,
    sql: `SELECT ${NIGHT} AS snapshot_date, coalesce(max(pooled_ids), 0)::BIGINT AS pooled_ids, coalesce(max(records), 0)::BIGINT AS pooled_records
FROM (${poolingNightsSql((c) => `${c} = ${NIGHT}`)})`,
  },
];

let cachedKey: string | null = null;

/** The vocabulary key: a digest of sql/views.sql and of every derived table's SQL (v1: the owners' reduction, src/report/owners.ts, is not in the text). */
export function derivedKey(): string {
  if (cachedKey) return cachedKey;
  const h = createHash('sha256').update('adsnap derived v1\n').update(readFileSync(path.join(packageRoot(), 'sql', 'views.sql'), 'utf8'));
  for (const t of DERIVED_TABLES) h.update(`\n-- ${t.name}\n`).update(t.sql);
  return (cachedKey = h.digest('hex').slice(0, 32));
}

/** A night's marker: written once every part of its set is in place. */
export interface DerivedMarker {
  key: string;
  snapshot_date: string;
  /** The complete runs of the night the set was computed from, sorted. */
  runs: string[];
  /** Per table, its part, relative to the root. */
  tables: Record<string, string>;
  seconds: number;
  written_at: string;
}

export const derivedDir = (root: string): string => path.join(root, '_derived');
export const markerPath = (root: string, night: string): string => path.join(derivedDir(root), '_nights', `${night}.json`);
export const partPath = (root: string, table: string, night: string, set: string): string => path.join(derivedDir(root), table, `snapshot_date=${night}`, `${set}.parquet`);

/** The marker of `night` in `root`, or null (none, unreadable, or not a marker). */
export async function readMarker(root: string, night: string): Promise<DerivedMarker | null> {
  try {
    const m = JSON.parse(await readFile(markerPath(root, night), 'utf8')) as DerivedMarker;
    return typeof m?.key === 'string' && Array.isArray(m.runs) && typeof m.tables === 'object' && m.tables !== null ? m : null;
  } catch {
    return null;
  }
}

/** Whether `m` is the current set of a night whose complete runs are `runs`: the key, the runs and every part. */
export function isCurrent(root: string, m: DerivedMarker | null, night: string, runs: readonly string[]): m is DerivedMarker {
  if (!m || m.key !== derivedKey() || m.snapshot_date !== night) return false;
  if ([...m.runs].sort().join('\n') !== [...runs].sort().join('\n')) return false;
  return DERIVED_TABLES.every((t) => typeof m.tables[t.name] === 'string' && existsSync(path.join(root, m.tables[t.name]!)));
}

/** What the roots hold: per night its complete runs' roots and ids. */
async function nightsOf(roots: readonly string[]): Promise<Map<string, { root: string; runs: string[] }[]>> {
  const nights = new Map<string, { root: string; runs: string[] }[]>();
  for (const root of roots) {
    const byNight = new Map<string, string[]>();
    for (const r of await completedRuns(root)) byNight.set(r.snapshotDate, [...(byNight.get(r.snapshotDate) ?? []), r.runId]);
    for (const [night, runs] of byNight) nights.set(night, [...(nights.get(night) ?? []), { root, runs }]);
  }
  return nights;
}

/** The current derived sets of `roots`: the nights read from them, each table's parts, and the nights that have none. */
export async function currentDerived(roots: readonly string[]): Promise<{ nights: string[]; underived: string[]; parts: Map<string, string[]> }> {
  const parts = new Map<string, string[]>(DERIVED_TABLES.map((t) => [t.name, []]));
  const nights: string[] = [];
  const underived: string[] = [];
  for (const [night, held] of [...(await nightsOf(roots))].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const only = held.length === 1 ? held[0]! : null;
    const m = only ? await readMarker(only.root, night) : null;
    if (!only || !isCurrent(only.root, m, night, only.runs)) {
      underived.push(night);
      continue;
    }
    nights.push(night);
    for (const t of DERIVED_TABLES) parts.get(t.name)!.push(path.join(only.root, m.tables[t.name]!));
  }
  return { nights, underived, parts };
}

/**
 * Redefines each figure view as its derived rows (the nights of a current set) and its definition's
 * rows for every other night (adsnap_underived, sql/views.sql): a filter on snapshot_date reaches
 * both, so an underived night reads only its own partitions. `night_summary` holds only derived rows.
 * Returns the nights read from derived sets.
 */
export async function useDerived(db: DuckDBConnection, roots: readonly string[]): Promise<{ nights: string[]; underived: string[] }> {
  const current = await currentDerived(roots);
  await db.run(`SET VARIABLE adsnap_derived_nights = CAST($1 AS DATE[])`, [listValue(current.nights)], [LIST(VARCHAR)]);
  // The derived nights as constants (dates from the manifests, YYYY-MM-DD), which DuckDB folds into
  // each scan's partition filter; a night neither derived nor listed as underived (a manifest whose
  // parts are gone) stays with the definitions. With no underived night the definitions' side is
  // not planned at all (the views below).
  const dates = current.nights.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)).map((d) => `DATE '${d}'`);
  if (dates.length > 0) await db.run(`CREATE OR REPLACE MACRO adsnap_underived(d) AS d NOT IN (${dates.join(', ')})`);
  const under = current.underived;
  for (const t of DERIVED_TABLES) {
    const files = current.parts.get(t.name)!;
    const derived = files.length === 0 ? null : `SELECT * EXCLUDE (vocabulary_key) FROM read_parquet([${files.map(sqlString).join(', ')}])`;
    if (t.view?.endsWith('_at')) {
      // The definition filters out the derived nights itself (adsnap_underived).
      const part = `SELECT * FROM (${derived}) WHERE ${t.nullNightIsEvery ? 'night IS NULL OR ' : ''}snapshot_date = night`;
      if (derived) await db.run(`CREATE OR REPLACE MACRO ${t.view}(night) AS TABLE ${under.length > 0 ? `SELECT * FROM ${definedAt(t.view)}(night) UNION ALL BY NAME ${part}` : part}`);
    } else if (t.view) {
      if (derived) await db.run(`CREATE OR REPLACE VIEW ${t.view} AS ${under.length > 0 ? `SELECT * FROM ${t.view}_defined WHERE adsnap_underived(snapshot_date) UNION ALL BY NAME ` : ''}${derived}`);
    } else {
      await db.run(`CREATE OR REPLACE VIEW ${t.name} AS ${derived ?? `SELECT NULL::DATE AS snapshot_date, NULL::BIGINT AS pooled_ids, NULL::BIGINT AS pooled_records WHERE false`}`);
    }
  }
  return { nights: current.nights, underived: current.underived };
}
