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
import { rangeBoundsSql } from '../util/key-ranges.js';

/** A filter on a table alias's `snapshot_date` (a night, or the report's window). */
export type NightFilter = (column: string) => string;

/** The temporary table of owners as written → registrable domains (src/report/owners.ts fills it). */
export const OWNER_TABLE = 'report_owner_domain';

/** The night a derivation reads, as the SQL below writes it; nightSql() puts the night's date in its place. */
const NIGHT = `getvariable('adsnap_derive_night')`;

/**
 * A derived table's SQL (or any SQL of a derivation) for `night` (YYYY-MM-DD): the date as a
 * constant, which DuckDB folds into each scan's partition filter, so only that night's partitions
 * are read (a filter it cannot fold read every night of the root: issue 34).
 */
export function nightSql(t: DerivedTable | string, night: string): string {
  if (!isCalendarDate(night)) throw new TypeError(`a night is YYYY-MM-DD, got ${JSON.stringify(night)}`);
  return (typeof t === 'string' ? t : t.sql).replaceAll(NIGHT, `DATE '${night}'`);
}

/**
 * Per night, how many (ad system, seller id) pairs are claimed DIRECT by two or more owners (the
 * pooled ids of pooledIdsSql) and the DIRECT records of valid files claiming them: the night
 * summary and the report's pooling.over_time. `pooled`: the relation pooledIdsSql's rows are read
 * from (the derivation's part of pooled_seller_ids), else that SQL itself.
 */
export function poolingNightsSql(nights: NightFilter, pooled = `(${pooledIdsSql(nights)})`): string {
  return `SELECT snapshot_date, count(*) AS pooled_ids, sum(records)::BIGINT AS records FROM ${pooled} GROUP BY ALL`;
}

/**
 * Per night, every (ad system, seller id) claimed DIRECT by two or more owners in the records of
 * valid files (ads.txt and app-ads.txt; the claims of the report's pooling.worst): the sites and
 * owners claiming it, the DIRECT records claiming it and the five smallest owners. A file's owner
 * is its first OWNERDOMAIN (view file_owner_domains), else its subject, reduced to its registrable
 * domain through OWNER_TABLE. Sites are grouped per (ad system, seller id, site) before each site's owner
 * is joined on (a four-string-key grouping of every record ran out of memory on a 1M-site night),
 * and the five owners listed for the pooled ids alone.
 */
export function pooledIdsSql(nights: NightFilter): string {
  return `WITH owner AS (
  SELECT snapshot_date, subject, file_kind, owner_domain FROM file_owner_domains WHERE ${nights('snapshot_date')}
), site_owner AS (
  SELECT f.snapshot_date, f.subject, f.file_kind, coalesce(d.owner_domain, coalesce(o.owner_domain, f.subject)) AS owner_domain
  FROM files f
  LEFT JOIN owner o ON o.snapshot_date = f.snapshot_date AND o.subject = f.subject AND o.file_kind = f.file_kind
  LEFT JOIN ${OWNER_TABLE} d ON d.owner = coalesce(o.owner_domain, f.subject)
  WHERE ${nights('f.snapshot_date')} AND f.valid AND f.file_kind IN ('ads.txt', 'app-ads.txt')
), site_claims AS (
  SELECT snapshot_date, ad_system_domain, seller_account_id, subject, file_kind, count(*) AS records FROM ads_records
  WHERE ${nights('snapshot_date')} AND relationship = 'DIRECT' GROUP BY ALL
), owner_sites AS (
  SELECT c.snapshot_date, c.ad_system_domain, c.seller_account_id, s.owner_domain, c.subject, sum(c.records) AS records
  FROM site_claims c JOIN site_owner s ON s.snapshot_date = c.snapshot_date AND s.subject = c.subject AND s.file_kind = c.file_kind
  GROUP BY ALL
), claims AS (
  -- Sites counted from one row per (id, owner, site): plain aggregates, which DuckDB spills, where
  -- count(DISTINCT subject) per (id, owner) ran out of 128MB at 1M sites.
  SELECT snapshot_date, ad_system_domain, seller_account_id, owner_domain, count(*) AS sites, sum(records) AS records
  FROM owner_sites GROUP BY ALL
), pooled AS (
  SELECT snapshot_date, ad_system_domain, seller_account_id, sum(sites)::BIGINT AS sites, count(*) AS owners, sum(records)::BIGINT AS records
  FROM claims GROUP BY snapshot_date, ad_system_domain, seller_account_id HAVING count(*) >= 2
)
-- The five smallest owners of the pooled ids alone: min(owner_domain, 5) over every id's claims
-- kept a list per id that DuckDB cannot spill (out of 128MB at 100k sites of the real web's mix).
SELECT p.snapshot_date, p.ad_system_domain, p.seller_account_id, any_value(p.sites) AS sites, any_value(p.owners) AS owners, min(c.owner_domain, 5) AS sample_owners,
       any_value(p.records) AS records
FROM pooled p
JOIN claims c ON c.snapshot_date = p.snapshot_date AND c.ad_system_domain = p.ad_system_domain AND c.seller_account_id = p.seller_account_id
GROUP BY p.snapshot_date, p.ad_system_domain, p.seller_account_id`;
}

/** How many pooled ids the report's pooling.worst lists per night (pooled_seller_top's rows). */
export const POOLED_TOP = 25;

/**
 * Per night, the POOLED_TOP ids of pooledIdsSql with most owners (then sites), with what
 * sellers.json says of each: its entry's name and domain (the smallest, should the records match
 * several), and how many of the owners claiming it DIRECT (registrable domains) match the domain
 * the entry names (seller_match.owner_domain_consistent). The rows of the report's pooling.worst.
 * seller_match is read for those ids only, but joins sellers.json and the night's files whatever
 * it is asked (its filter is not pushed below its LEFT joins): 2.7-3.5 s of a 1M-site night's
 * report, written once per night in the derivation instead. `pooled`: the relation pooledIdsSql's
 * rows are read from (the derivation's part of pooled_seller_ids), else that SQL itself.
 */
export function pooledTopSql(nights: NightFilter, pooled = `(${pooledIdsSql(nights)})`): string {
  return `WITH pooled AS (
SELECT * FROM ${pooled}
), top AS (
  SELECT * FROM pooled
  QUALIFY row_number() OVER (PARTITION BY snapshot_date ORDER BY owners DESC, sites DESC, ad_system_domain, seller_account_id) <= ${POOLED_TOP}
), matched AS (
  SELECT m.snapshot_date, m.ad_system_domain, m.seller_account_id, coalesce(d.owner_domain, m.owner_domain) AS owner_domain,
    coalesce(bool_or(m.owner_domain_consistent), false) AS matches_seller, min(m.seller_name) AS seller_name, min(m.seller_domain) AS seller_domain
  FROM seller_match m
  JOIN top t ON t.snapshot_date = m.snapshot_date AND t.ad_system_domain = m.ad_system_domain AND t.seller_account_id = m.seller_account_id
  LEFT JOIN ${OWNER_TABLE} d ON d.owner = m.owner_domain
  WHERE ${nights('m.snapshot_date')} AND m.relationship = 'DIRECT'
  GROUP BY ALL
)
SELECT t.snapshot_date, t.ad_system_domain, t.seller_account_id, min(x.seller_name) AS seller_name, min(x.seller_domain) AS seller_domain,
  t.sites, t.owners, count(*) FILTER (WHERE x.matches_seller) AS owners_matching_seller_domain, t.sample_owners
FROM top t
LEFT JOIN matched x ON x.snapshot_date = t.snapshot_date AND x.ad_system_domain = t.ad_system_domain AND x.seller_account_id = t.seller_account_id
GROUP BY t.snapshot_date, t.ad_system_domain, t.seller_account_id, t.sites, t.owners, t.sample_owners`;
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
  /** Without a view: the rows read when no night has a part (no rows, the table's columns). */
  empty?: string;
  /** Written one range of subjects at a time (src/report/derived.ts), its rows then added up. */
  ranged?: RangedTable;
}

/**
 * A derived table whose rows are sums over its definition's parts (`parts`) and ranges of subjects:
 * `sql(part, lo, hi)` gives one part's rows for the subjects in [lo, hi) (NULL: unbounded), and
 * the rows of every part and range, grouped by their other columns, add up in `sums`, its last
 * columns (rangedSumSql). The night's records are sorted by subject, so a range reads its own row
 * groups: each range's hash tables hold a slice of the night, whatever its size.
 */
export interface RangedTable {
  parts: readonly string[];
  sql: (part: string, lo: string | null, hi: string | null) => string;
  /** The columns that add up; none when each row is of one subject (listed_sites: the pieces' rows are the table's). */
  sums: readonly string[];
  /**
   * Table macros of one argument, the night (sql/views.sql), that `sql` reads whatever its range:
   * computed once for the night's ranges, not once per range (src/report/derived.ts shadows each
   * with a temporary macro over its rows). Their text is in views.sql, so the key covers them.
   */
  shared?: readonly string[];
}

/** The rows of a ranged table from its pieces, read from `from`: each group's `sums` added up (no sums: the pieces' rows, each of one range). */
export const rangedSumSql = (t: RangedTable, from: string): string =>
  t.sums.length === 0
    ? `SELECT * FROM ${from}`
    : `SELECT * EXCLUDE (${t.sums.join(', ')}), ${t.sums.map((c) => `sum(${c})::BIGINT AS ${c}`).join(', ')} FROM ${from} GROUP BY ALL`;

/** The night's records per range of subjects in a ranged table's derivation (3M: `authorization_counts` fits in 128 MB at 1M sites). */
export const RECORDS_PER_RANGE = 3_000_000;

/**
 * The cuts of `ranges` ranges of subjects holding about as many of the night's records each
 * (src/util/key-ranges.ts): every subject is in one of them, however the sample fell.
 */
export const subjectBoundsSql = (ranges: number): string => rangeBoundsSql(ranges, 'subject', `ads_records WHERE snapshot_date = ${NIGHT}`);

/** The night's records counted: how many ranges a ranged table needs. */
export const nightRecordsSql = `SELECT count(*) AS n FROM ads_records WHERE snapshot_date = ${NIGHT}`;

const literal = (s: string | null): string => (s === null ? 'NULL' : sqlString(s));

/**
 * The relation a derived table's SQL reads an earlier table of its own set through (the part just
 * written, as `setPart('pooled_seller_ids')`): the derivation defines it over that part before the
 * table is written, so rows computed once are not computed again in the same set.
 */
export const setPart = (name: string): string => `adsnap_set_${name}`;

/** A table macro of one night (`view` ends in `_at`), its rows derived from `X_defined_at(night)`. */
const fromMacro = (name: string, view: string, nullNightIsEvery: boolean): DerivedTable => ({
  name, view, nullNightIsEvery, sql: `SELECT * FROM ${definedAt(view)}(${NIGHT})`,
});

/** The definition of a night's table macro: `X_at` → `X_defined_at`. */
export const definedAt = (macro: string): string => macro.replace(/_at$/, '_defined_at');

const fromView = (view: string): DerivedTable => ({ name: view, view, sql: `SELECT * FROM ${view}_defined WHERE snapshot_date = ${NIGHT}` });

/**
 * A view whose definition is `adsnap_<view>_in(lo, hi)` over every subject, its `sums` counts of
 * rows that each belong to one subject (none: each row is one subject's): derived one range of
 * subjects at a time (RangedTable), which holds a range's rows in memory, not the night's.
 */
const rangedView = (view: string, sums: readonly string[]): DerivedTable => ({
  ...fromView(view),
  ranged: { parts: ['all'], sql: (_part, lo, hi) => `SELECT * FROM adsnap_${view}_in(${literal(lo)}, ${literal(hi)}) WHERE snapshot_date = ${NIGHT}`, sums },
});

/** Every derived table, in the order they are written. */
export const DERIVED_TABLES: readonly DerivedTable[] = [
  fromView('file_scopes'),
  // The tables over every site or record of the night are written one range of subjects at a
  // time: whole, each needed 192–256MB at 1M sites; a range fits in the commit's 128MB
  // (docs/performance.md). The tables after them read their parts.
  rangedView('listed_sites', []),
  fromView('listed_apps'),
  rangedView('ad_system_root_counts', ['sites', 'sites_direct', 'records', 'direct_records']),
  fromView('ad_system_sites'),
  rangedView('ad_company_root_counts', ['sites', 'sites_direct', 'records']),
  fromView('ad_company_sites'),
  rangedView('ad_system_seller_checks', ['records', 'checkable', 'missing', 'relationship_mismatch', 'owner_mismatch']),
  // ad_system_coverage's counts and ad_systems.top's files: each reads every record of the night
  // (18.2 s and 9.9 s of a 1M-site night's report when computed at report time).
  fromView('ad_system_match_counts'),
  rangedView('ad_system_file_counts', ['files', 'records', 'cert_records']),
  fromView('parse_issue_counts'),
  fromView('scope_relationships'),
  fromView('agent_access_shares'),
  fromView('ai_crawler_blocking'),
  fromView('ai_crawler_blocking_by_purpose'),
  fromView('ai_crawler_blocking_by_operator'),
  fromMacro('headline_figures', 'headline_figures_at', true),
  // Section 11's verdicts counted: authorization_at over every record of the night is the
  // report's costliest step when computed at report time (93.1 s of 141.1 s at 300k sites).
  // Written one range of subjects at a time (RangedTable): whole, it ran out of 2 GB at 1M sites;
  // a range fits in the commit's 128MB (docs/performance.md).
  {
    ...fromMacro('authorization_counts', 'authorization_counts_at', false),
    ranged: {
      parts: ['own', 'asked'],
      sql: (part, lo, hi) => `SELECT * FROM adsnap_authorization_counts_in(${NIGHT}, ${sqlString(part)}, ${literal(lo)}, ${literal(hi)})`,
      // A target is in one part and one range: its counts add up.
      sums: ['pairs', 'targets'],
      // The declared partners' records and files: at 1M sites, reading every record of the night
      // for them in each of the 24 ranges was 29 s of the derivation's 217 (docs/performance.md).
      shared: ['adsnap_auth_partner_records', 'adsnap_auth_partner_files'],
    },
  },
  // The night's pooled seller ids (pooling.worst reads the latest night's): every DIRECT record of the night grouped (12.7 s of a 1M-site night's report).
  {
    name: 'pooled_seller_ids',
    view: null,
    sql: pooledIdsSql((c) => `${c} = ${NIGHT}`),
    empty: `SELECT NULL::DATE AS snapshot_date, NULL::VARCHAR AS ad_system_domain, NULL::VARCHAR AS seller_account_id, NULL::BIGINT AS sites,
  NULL::BIGINT AS owners, NULL::VARCHAR[] AS sample_owners, NULL::BIGINT AS records WHERE false`,
  },
  // The night summary: the pooled seller ids of the night counted from the set's pooled_seller_ids
  // (a night with none has a row of zeros). Computed again, they ran out of 192MB at 1M sites.
  {
    name: 'night_summary',
    view: null,
    sql: `SELECT ${NIGHT} AS snapshot_date, count(*)::BIGINT AS pooled_ids, coalesce(sum(records), 0)::BIGINT AS pooled_records FROM ${setPart('pooled_seller_ids')}`,
    empty: `SELECT NULL::DATE AS snapshot_date, NULL::BIGINT AS pooled_ids, NULL::BIGINT AS pooled_records WHERE false`,
  },
  // The night's rows of pooling.worst: its pooled seller ids with most owners and what sellers.json
  // says of them (seller_match read for those ids: 2.7-3.5 s of a 1M-site night's report).
  {
    name: 'pooled_seller_top',
    view: null,
    // The pooled ids from the set's pooled_seller_ids: computed again, they and the join to
    // sellers.json ran out of 256 MB at 100k sites, where each fits alone.
    sql: pooledTopSql((c) => `${c} = ${NIGHT}`, setPart('pooled_seller_ids')),
    empty: `SELECT NULL::DATE AS snapshot_date, NULL::VARCHAR AS ad_system_domain, NULL::VARCHAR AS seller_account_id, NULL::VARCHAR AS seller_name,
  NULL::VARCHAR AS seller_domain, NULL::BIGINT AS sites, NULL::BIGINT AS owners, NULL::BIGINT AS owners_matching_seller_domain, NULL::VARCHAR[] AS sample_owners WHERE false`,
  },
];

/**
 * The series tables: a night's rows that depend on the nights before it, written as a set of their
 * own (marker ROOT/_derived/_series/<night>.json) after the night's set. `record_changes` is the
 * view's rows for the night; `file_observation_carry` is the state the next night's derivation
 * starts from: the last observation of every ads.txt / app-ads.txt observed before the night and
 * not on it. With the night's own observations it is each file's last observation up to the
 * night, so a night's changes are computed from its own files, the night before's and the
 * carry, and the records of the nights the changed files were last observed: not from every night.
 */
export const SERIES_TABLES = ['record_changes', 'file_observation_carry'] as const;

/**
 * The series SQL, run by src/report/derived.ts: `pairs` and `carry` in a database of the night and
 * the night before (the variable adsnap_previous_night; the carry of the night before read as the
 * view adsnap_carry_before), then `record_changes` in one of the night and the nights the changed
 * files were last observed, from the pairs (adsnap_record_changes_of_pairs, sql/views.sql).
 */
export const SERIES_SQL = {
  observed: `SELECT subject, file_kind, snapshot_date AS observed_date, status, sha256 FROM files
WHERE file_kind IN ('ads.txt', 'app-ads.txt') AND adsnap_observed(file_kind, status) AND coalesce(obtained, 'fetched') <> 'carried_forward'`,
  before: `SELECT subject, file_kind, observed_date, status, sha256 FROM adsnap_observed_files WHERE observed_date = getvariable('adsnap_previous_night')
UNION ALL SELECT subject, file_kind, observed_date, status, sha256 FROM adsnap_carry_before`,
  pairs: `SELECT n.observed_date AS snapshot_date, b.observed_date AS previous_date, n.subject, n.file_kind
FROM adsnap_observed_files n JOIN adsnap_state_before b ON b.subject = n.subject AND b.file_kind = n.file_kind
WHERE n.observed_date = ${NIGHT} AND (n.sha256 IS DISTINCT FROM b.sha256 OR n.status IS DISTINCT FROM b.status)`,
  carry: `SELECT ${NIGHT} AS snapshot_date, b.* FROM adsnap_state_before b ANTI JOIN (SELECT subject, file_kind FROM adsnap_observed_files WHERE observed_date = ${NIGHT}) n
  ON n.subject = b.subject AND n.file_kind = b.file_kind`,
  record_changes: `SELECT * FROM adsnap_record_changes_of_pairs() WHERE snapshot_date = ${NIGHT}`,
} as const;

/** A night's series marker: written once both parts are in place. */
export interface SeriesMarker {
  key: string;
  snapshot_date: string;
  runs: string[];
  /** earlierDigest() of the nights before, as the root held them when the set was computed. */
  earlier: string;
  tables: Record<string, string>;
  seconds: number;
  written_at: string;
}

export const seriesMarkerPath = (root: string, night: string): string => path.join(derivedDir(root), '_series', `${night}.json`);

/** A digest of the nights before `night` and their complete runs (`nights`: every night held, its runs). */
export function earlierDigest(nights: ReadonlyMap<string, readonly string[]>, night: string): string {
  const h = createHash('sha256');
  for (const [d, runs] of [...nights].filter(([d]) => d < night).sort(([a], [b]) => (a < b ? -1 : 1))) h.update(`${d}\t${[...runs].sort().join(',')}\n`);
  return h.digest('hex').slice(0, 32);
}

/** The series marker of `night` in `root`, or null. */
export async function readSeriesMarker(root: string, night: string): Promise<SeriesMarker | null> {
  try {
    const m = JSON.parse(await readFile(seriesMarkerPath(root, night), 'utf8')) as SeriesMarker;
    return typeof m?.key === 'string' && Array.isArray(m.runs) && typeof m.earlier === 'string' && typeof m.tables === 'object' && m.tables !== null ? m : null;
  } catch {
    return null;
  }
}

/** Whether `m` is the current series set of `night`: the key, the night's runs, the nights before, and both parts. */
export function isSeriesCurrent(root: string, m: SeriesMarker | null, night: string, runs: readonly string[], earlier: string): m is SeriesMarker {
  if (!m || m.key !== derivedKey() || m.snapshot_date !== night || m.earlier !== earlier) return false;
  if ([...m.runs].sort().join('\n') !== [...runs].sort().join('\n')) return false;
  return SERIES_TABLES.every((t) => typeof m.tables[t] === 'string' && existsSync(path.join(root, m.tables[t]!)));
}

let cachedKey: string | null = null;

/** The vocabulary key: a digest of sql/views.sql and of every derived table's SQL (v1: the owners' reduction, src/report/owners.ts, is not in the text). */
export function derivedKey(): string {
  if (cachedKey) return cachedKey;
  const h = createHash('sha256').update('adsnap derived v1\n').update(readFileSync(path.join(packageRoot(), 'sql', 'views.sql'), 'utf8'));
  for (const t of DERIVED_TABLES) {
    h.update(`\n-- ${t.name}\n`).update(t.sql);
    if (t.ranged) h.update(`\n-- ${t.name} ranged\n`).update(t.ranged.parts.map((p) => t.ranged!.sql(p, 'lo', 'hi')).join('\n')).update(rangedSumSql(t.ranged, 'adsnap_ranges'));
  }
  for (const [name, sql] of Object.entries(SERIES_SQL)) h.update(`\n-- series ${name}\n`).update(sql);
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

/**
 * The current derived sets of `roots`: the nights read from them, each table's parts, and the
 * nights that have none; `series`, the same for the series tables (SERIES_TABLES), whose sets are
 * current only while the nights before are those they were computed after (over every root read:
 * a night before held by another root makes them stale).
 */
export async function currentDerived(roots: readonly string[]): Promise<{
  nights: string[]; underived: string[]; parts: Map<string, string[]>;
  series: { nights: string[]; underived: string[]; parts: Map<string, string[]> };
}> {
  const parts = new Map<string, string[]>(DERIVED_TABLES.map((t) => [t.name, []]));
  const nights: string[] = [];
  const underived: string[] = [];
  const series = { nights: [] as string[], underived: [] as string[], parts: new Map<string, string[]>(SERIES_TABLES.map((t) => [t, []])) };
  const held = [...(await nightsOf(roots))].sort(([a], [b]) => (a < b ? -1 : 1));
  const runsByNight = new Map(held.map(([night, h]) => [night, h.flatMap((x) => x.runs)]));
  for (const [night, h] of held) {
    const only = h.length === 1 ? h[0]! : null;
    const m = only ? await readMarker(only.root, night) : null;
    if (only && isCurrent(only.root, m, night, only.runs)) {
      nights.push(night);
      for (const t of DERIVED_TABLES) parts.get(t.name)!.push(path.join(only.root, m.tables[t.name]!));
    } else underived.push(night);
    const sm = only ? await readSeriesMarker(only.root, night) : null;
    if (only && isSeriesCurrent(only.root, sm, night, only.runs, earlierDigest(runsByNight, night))) {
      series.nights.push(night);
      for (const t of SERIES_TABLES) series.parts.get(t)!.push(path.join(only.root, sm.tables[t]!));
    } else series.underived.push(night);
  }
  return { nights, underived, parts, series };
}

/**
 * Redefines each figure view as its derived rows (the nights of a current set) and its definition's
 * rows for every other night (adsnap_underived, sql/views.sql): a filter on snapshot_date reaches
 * both, so an underived night reads only its own partitions. `night_summary` holds only derived rows.
 * Returns the nights read from derived sets.
 */
export async function useDerived(db: DuckDBConnection, roots: readonly string[]): Promise<DerivedNights> {
  const current = await currentDerived(roots);
  await db.run(`SET VARIABLE adsnap_derived_nights = CAST($1 AS DATE[])`, [listValue(current.nights)], [LIST(VARCHAR)]);
  // The derived nights as constants (dates from the manifests, YYYY-MM-DD), which DuckDB folds into
  // each scan's partition filter; a night neither derived nor listed as underived (a manifest whose
  // parts are gone) stays with the definitions. With no underived night the definitions' side is
  // not planned at all (the views below).
  const dateList = (nights: string[]) => nights.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)).map((d) => `DATE '${d}'`).join(', ');
  if (current.nights.length > 0) await db.run(`CREATE OR REPLACE MACRO adsnap_underived(d) AS d NOT IN (${dateList(current.nights)})`);
  const under = current.underived;
  for (const t of DERIVED_TABLES) {
    const files = current.parts.get(t.name)!;
    const derived = files.length === 0 ? null : partsSql(files);
    if (t.view?.endsWith('_at')) {
      // The definition filters out the derived nights itself (adsnap_underived).
      const part = `SELECT * FROM (${derived}) WHERE ${t.nullNightIsEvery ? 'night IS NULL OR ' : ''}snapshot_date = night`;
      if (derived) await db.run(`CREATE OR REPLACE MACRO ${t.view}(night) AS TABLE ${under.length > 0 ? `SELECT * FROM ${definedAt(t.view)}(night) UNION ALL BY NAME ${part}` : part}`);
    } else if (t.view) {
      if (derived) await db.run(`CREATE OR REPLACE VIEW ${t.view} AS ${under.length > 0 ? `SELECT * FROM ${t.view}_defined WHERE adsnap_underived(snapshot_date) UNION ALL BY NAME ` : ''}${derived}`);
    } else {
      await db.run(`CREATE OR REPLACE VIEW ${t.name} AS ${derived ?? t.empty!}`);
    }
  }
  // record_changes: the series sets' rows, and the definition's for the other nights.
  const changes = current.series.parts.get('record_changes')!;
  if (changes.length > 0) {
    const rest = current.series.underived.length > 0 ? `SELECT * FROM record_changes_defined WHERE snapshot_date NOT IN (${dateList(current.series.nights)}) UNION ALL BY NAME ` : '';
    await db.run(`CREATE OR REPLACE VIEW record_changes AS ${rest}${partsSql(changes)}`);
  }
  return { nights: current.nights, underived: current.underived, changesUnderived: current.series.underived };
}

/** The nights read from their derived sets (`nights`) and from the definitions (`underived`); `changesUnderived`, the nights whose record changes are read from the definition (no current series set). */
export interface DerivedNights {
  nights: string[];
  underived: string[];
  changesUnderived: string[];
}

/** The rows of derived parts, without their key column. */
const partsSql = (files: readonly string[]): string => `SELECT * EXCLUDE (vocabulary_key) FROM read_parquet([${files.map(sqlString).join(', ')}])`;
