/**
 * The report's setup: the window of nights and the rank buckets as DuckDB variables, and the
 * macros and temp tables every figure reads. Values are bound as parameters when the report runs
 * them; report.json's `setup_sql` has each statement with its value written out as a literal, so
 * that `adsnap sql ROOT -c "<setup_sql>; <figure sql>"` gives the figure's rows again.
 */
import { INTEGER, LIST, listValue, VARCHAR, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { sqlString } from '../util/sql-literal.js';

/** The window of nights a report covers: asked for (from, to) and found in it (first, latest). */
export interface ReportWindow {
  from: string;
  to: string;
  firstNight: string;
  latestNight: string;
}

type VariableType = 'DATE' | 'VARCHAR' | 'INTEGER[]' | 'VARCHAR[]' | 'DATE[]';

/** A DuckDB variable of the setup: set with its value bound (`SET VARIABLE name = $1`). */
export interface ReportVariable {
  name: string;
  type: VariableType;
  value: string | readonly string[] | readonly number[];
}

/** The type a value is bound as (a date as its YYYY-MM-DD text), before the CAST to the variable's type. */
const DUCKDB_TYPE: Record<VariableType, DuckDBType> = {
  DATE: VARCHAR,
  VARCHAR,
  'INTEGER[]': LIST(INTEGER),
  'VARCHAR[]': LIST(VARCHAR),
  'DATE[]': LIST(VARCHAR),
};

/** The variables of the window and of the rank buckets (bucket bounds, their labels: rankLabel). */
export function windowVariables(w: ReportWindow, buckets: readonly number[]): ReportVariable[] {
  const sorted = sortedBuckets(buckets);
  return [
    { name: 'report_from', type: 'DATE', value: w.from },
    { name: 'report_to', type: 'DATE', value: w.to },
    { name: 'report_first_night', type: 'DATE', value: w.firstNight },
    { name: 'report_to_night', type: 'DATE', value: w.latestNight },
    { name: 'report_rank_buckets', type: 'INTEGER[]', value: sorted },
    // One label per bucket, then the one beyond the last bound: rank_bucket() indexes it.
    { name: 'report_rank_labels', type: 'VARCHAR[]', value: bucketLabels(sorted).slice(0, -1) },
  ];
}

/**
 * The setup's statements that hold no value: macros over the variables, and the temp tables read
 * by several figures (`siteChangesSql`: the listed sites that started or stopped declaring).
 */
export function setupStatements(siteChangesSql: string): string[] {
  return [
    `CREATE OR REPLACE MACRO in_window(d) AS d BETWEEN getvariable('report_from') AND getvariable('report_to')`,
    // The disjoint bucket of a rank: the labels' entry after the bounds below it.
    `CREATE OR REPLACE MACRO rank_bucket(r) AS CASE WHEN r IS NULL THEN 'unranked'
  ELSE getvariable('report_rank_labels')[len(list_filter(getvariable('report_rank_buckets'), b -> b < r)) + 1] END`,
    // The cumulative top-N buckets beside the disjoint ones (top 1k, top 10k, …).
    `CREATE OR REPLACE MACRO rank_top_n() AS getvariable('report_rank_buckets')`,
    // The window's record changes, read by two figures: computed once (small: the changed records).
    `CREATE OR REPLACE TEMP TABLE report_record_changes AS SELECT * FROM record_changes WHERE in_window(snapshot_date)`,
    // The listed sites that gained or lost a declaring ads.txt, read by two figures (small: the changes).
    `CREATE OR REPLACE TEMP TABLE report_site_changes AS ${siteChangesSql}`,
    // The latest night's headline figures: the headline's figure, and the headline's number beside a narrower figure's.
    `CREATE OR REPLACE TEMP TABLE report_headline AS SELECT * FROM headline_figures_at(getvariable('report_to_night'))`,
    // The latest night's ad_system_coverage, read by two figures.
    `CREATE OR REPLACE TEMP TABLE report_coverage AS SELECT * FROM ad_system_coverage WHERE snapshot_date = getvariable('report_to_night')`,
    // The latest night's site_ai_consent, read by the consent section's five figures: its view joins
    // twelve of the night's tables and takes earlier nights' answers through an ASOF join, so it is
    // read once (1.7-2.9 s a figure at 1M sites; docs/performance.md).
    `CREATE OR REPLACE TEMP TABLE report_consent AS SELECT * FROM site_ai_consent WHERE snapshot_date = getvariable('report_to_night')`,
    // The latest night's verdicts counted, read by section 11: the derived rows when the night has
    // a current set, else authorization_at over the night's records (the report's costliest macro).
    `CREATE OR REPLACE TEMP TABLE report_authorization AS SELECT * FROM authorization_counts_at(getvariable('report_to_night'))`,
  ];
}

/** Sets `v` on `conn`, its value bound as a parameter. */
export async function setVariable(conn: DuckDBConnection, v: ReportVariable): Promise<void> {
  const value = typeof v.value === 'string' ? v.value : listValue([...v.value]);
  await conn.run(`SET VARIABLE ${v.name} = CAST($1 AS ${v.type})`, [value], [DUCKDB_TYPE[v.type]]);
}

/** `SET VARIABLE …` with the value written as a SQL literal: report.json's replayable form of setVariable. */
export function variableStatement(v: ReportVariable): string {
  const one = (x: string | number) => (typeof x === 'number' ? String(x) : sqlString(x));
  const literal = typeof v.value === 'string' ? one(v.value) : `[${v.value.map(one).join(', ')}]`;
  return `SET VARIABLE ${v.name} = CAST(${literal} AS ${v.type})`;
}

function sortedBuckets(buckets: readonly number[]): number[] {
  return [...new Set(buckets)].sort((a, b) => a - b);
}

/** 1000 → '1k', 1000000 → '1M', 0 → '1' (the first bucket starts at rank 1). */
export function rankLabel(n: number): string {
  if (n === 0) return '1';
  if (n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n % 1_000 === 0) return `${n / 1_000}k`;
  return String(n);
}

/** The bucket labels in rank order, as rank_bucket() writes them. */
export function bucketLabels(buckets: readonly number[]): string[] {
  const sorted = sortedBuckets(buckets);
  const out: string[] = [];
  let lower = 0;
  for (const b of sorted) {
    out.push(`${rankLabel(lower)}–${rankLabel(b)}`);
    lower = b;
  }
  out.push(sorted.length > 0 ? `beyond ${rankLabel(lower)}` : 'ranked', 'unranked');
  return out;
}
