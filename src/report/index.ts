/**
 * `adsnap report`: a snapshot series turned into a page people read. Every figure is a query over
 * the shipped views (figures.ts), run with DuckDB over the snapshot roots; the page
 * (`index.html`: one file, charts as inline SVG, nothing fetched), `report.json` (every figure's
 * rows by its stable key, with the SQL that made them) and one CSV per figure are written to the
 * output folder.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { openSnapshotDb } from '../sql/snapshot-db.js';
import { renderSvg, vegaLiteSpec } from './charts.js';
import { SECTIONS, SITE_CHANGES_SQL, type FigureDef } from './figures.js';
import { chartRows, leftOutNote } from './chart-rows.js';
import { bucketLabels, setupStatements, setVariable, variableStatement, windowVariables, type ReportVariable, type ReportWindow } from './setup.js';
import { OWNER_CSV, ownerTableSetup } from './owners.js';
import { renderPage } from './page.js';
import { cellConverter } from '../sql/output.js';
import { csvText } from '../text/csv.js';
import { visibleLines } from '../text/visible.js';
import { simulatedBanner, simulatedNights, type SimulatedNight } from './provenance.js';
import { isDuckDbSize } from '../util/duckdb-size.js';
import { headlineObject, type HeadlineFigure, type HeadlineKey } from '../sql/headline.js';
import { replaceFileAtomically } from '../util/atomic-file.js';
import { stepTiming } from '../util/step-timing.js';

/** The figure whose rows are report.json's `headline`. */
const HEADLINE_FIGURE = 'headline.figures';

export const DEFAULT_RANK_BUCKETS: readonly number[] = Object.freeze([1_000, 10_000, 100_000, 1_000_000]);

export interface ReportOptions {
  roots: readonly string[];
  outDir: string;
  /** First and last snapshot date to report (YYYY-MM-DD); default: the whole series. */
  from?: string | null;
  to?: string | null;
  rankBuckets?: readonly number[];
  /** Clock for the page's "generated" line (tests). */
  now?: Date;
}

// Row and FigureResult live in figure-types.ts (page.ts and chart-rows.ts read them without importing this module).
export type { FigureResult, Row } from './figure-types.js';
import type { FigureResult, Row } from './figure-types.js';

export interface ReportResult {
  index: string;
  json: string;
  nights: string[];
  figures: number;
  charts: number;
}

export interface ReportJson {
  report_version: 1;
  generated_at: string;
  roots: string[];
  window: { from: string | null; to: string | null; nights: string[] };
  rank_buckets: number[];
  /** Run these in `adsnap sql` before a figure's SQL to get the same rows. */
  setup_sql: string[];
  /** Nights whose figures were read from their derived tables (src/sql/derived.ts), not computed from the definitions. */
  derived_nights: string[];
  /** Nights of the window without a current derived set, or whose record changes have none (their series set): the definitions answered (the same numbers, slower); `adsnap derive` writes them. */
  underived_nights: string[];
  missing: string[];
  /**
   * The latest night's headline figures by stable key (view headline_figures; the figure
   * 'headline.figures' has the same rows): a share has value, n, denominator and ci95 (Wilson
   * 95%), a count only value; each has its scope and definition (docs/reference/figures.md).
   */
  headline: Record<HeadlineKey, HeadlineFigure>;
  /** The nights crawled with address-guard exemptions (provenance.ts): not the public web; [] when none. */
  not_public_web: SimulatedNight[];
  sections: { key: string; title: string; intro: string; figures: Omit<FigureResult, 'svg' | 'csv' | 'shareOf'>[] }[];
}

export async function buildReport(o: ReportOptions): Promise<ReportResult> {
  const buckets = [...(o.rankBuckets ?? DEFAULT_RANK_BUCKETS)];
  // A root that exists but holds no complete night yet gives a page that says so (a missing root is an error).
  const db = await openSnapshotDb(o.roots.length === 1 ? o.roots[0]! : o.roots, { allowEmpty: true });
  try {
    // A bound on DuckDB's memory (it spills past it): the report runs beside other jobs.
    await db.rows(`SET memory_limit = $1`, [memoryLimit()]);
    // Every figure has its ORDER BY: DuckDB need not keep insertion order, which costs memory.
    await db.rows(`SET preserve_insertion_order = false`);
    const allNights = (await db.rows(`SELECT DISTINCT strftime(snapshot_date, '%Y-%m-%d') AS d FROM files ORDER BY d`)).map((r) => String(r.d));
    const nights = allNights.filter((d) => (!o.from || d >= o.from) && (!o.to || d <= o.to));
    const missing: string[] = [];
    if (allNights.length === 0) missing.push('No complete night in the snapshot roots yet (no run manifest with files rows): nothing to report.');
    else if (nights.length === 0) missing.push(`No night between ${o.from ?? 'the first'} and ${o.to ?? 'the last'}: the roots hold ${allNights[0]} to ${allNights[allNights.length - 1]}.`);
    else if (nights.length === 1) missing.push(`One night (${nights[0]}): the figures over time need two or more, and the changes section compares consecutive nights.`);

    const window: ReportWindow | null =
      nights.length === 0 ? null : { from: o.from ?? nights[0]!, to: o.to ?? nights[nights.length - 1]!, firstNight: nights[0]!, latestNight: nights[nights.length - 1]! };
    // Said before the setup runs: over a large series, the definitions' side may run out of
    // memory, and the notice with its command is then the last thing the user reads before the error.
    const underived = window ? nights.filter((d) => !db.derived.nights.includes(d)) : [];
    // Named: the nights without a current set, and those whose record changes are read from the definition.
    const named = window ? nights.filter((d) => underived.includes(d) || db.derived.changesUnderived.includes(d)) : [];
    announceUnderived(named, missing);
    // Values are bound (setVariable); setup_sql has them written out, for `adsnap sql`.
    const setup: string[] = [];
    if (window) {
      for (const v of windowVariables(window, buckets)) setup.push(await bind(db, v));
      for (const stmt of setupStatements(SITE_CHANGES_SQL)) {
        const t0 = performance.now();
        await db.rows(stmt);
        timing(`setup ${stmt.slice(0, 60).replace(/\s+/g, ' ')}…`, t0);
        setup.push(stmt);
      }
    }
    await mkdir(o.outDir, { recursive: true });
    // The pooling section's owners as registrable domains (owners.ts): a file beside the report, loaded by setup_sql.
    if (window) setup.push(await ownerTableSetup(db.connection, path.resolve(o.outDir, OWNER_CSV)));
    if (window) await useDerivedNights(db, underived, setup);

    const sections: { key: string; title: string; intro: string; figures: FigureResult[] }[] = [];
    for (const s of SECTIONS) {
      const figures: FigureResult[] = [];
      for (const f of s.figures) figures.push(await runFigure(db, f, nights.length));
      sections.push({ key: s.key, title: s.title, intro: s.intro, figures });
    }

    const notPublic = await simulatedNights(o.roots, nights);
    const generatedAt = (o.now ?? new Date()).toISOString();
    const json: ReportJson = {
      report_version: 1,
      generated_at: generatedAt,
      roots: o.roots.map((r) => path.resolve(r)),
      window: { from: window?.from ?? o.from ?? null, to: window?.to ?? o.to ?? null, nights },
      rank_buckets: buckets,
      setup_sql: setup,
      derived_nights: nights.filter((d) => !named.includes(d)),
      underived_nights: named,
      missing,
      headline: headlineObject(sections.flatMap((s) => s.figures).find((f) => f.key === HEADLINE_FIGURE)?.rows ?? []),
      not_public_web: notPublic,
      sections: sections.map((s) => ({ ...s, figures: s.figures.map(({ svg: _svg, csv: _csv, shareOf: _shareOf, ...f }) => f) })),
    };
    const figures = sections.flatMap((s) => s.figures);
    for (const f of figures) {
      const file = path.join(o.outDir, `${f.key}.csv`);
      // No CSV without columns, and none left over from an earlier report into the same folder.
      if (f.csv === null) await rm(file, { force: true });
      else await replaceFileAtomically(file, f.csv);
    }
    const jsonPath = path.join(o.outDir, 'report.json');
    await replaceFileAtomically(jsonPath, JSON.stringify(json, null, 2) + '\n');
    const indexPath = path.join(o.outDir, 'index.html');
    await replaceFileAtomically(indexPath, renderPage({ generatedAt, roots: o.roots, nights, missing, banner: simulatedBanner(notPublic, nights.length), buckets: bucketLabels(buckets), sections }));
    return { index: indexPath, json: jsonPath, nights, figures: figures.length, charts: figures.filter((f) => f.svg !== null).length };
  } finally {
    db.close();
  }
}

/**
 * The nights' derived sets (src/sql/derived.ts; openSnapshotDb read them): the night summaries of
 * the window into the temp table report_night_summary, and the nights the definitions answer for
 * (`underived`: the variable report_viewed_nights, macro report_viewed); these statements join `setup`.
 */
async function useDerivedNights(db: Awaited<ReturnType<typeof openSnapshotDb>>, underived: readonly string[], setup: string[]): Promise<void> {
  const collect = `CREATE OR REPLACE TEMP TABLE report_night_summary AS SELECT snapshot_date, pooled_ids, pooled_records FROM night_summary WHERE in_window(snapshot_date)`;
  await db.rows(collect);
  setup.push(collect, await bind(db, { name: 'report_viewed_nights', type: 'DATE[]', value: [...underived] }));
  await db.rows(VIEWED_NIGHTS_MACRO);
  setup.push(VIEWED_NIGHTS_MACRO);
}

/** Nights without a current derived set, named on stderr and on the page with the command that derives them. */
function announceUnderived(underived: readonly string[], missing: string[]): void {
  if (underived.length > 0) {
    const said = `${underived.length === 1 ? 'Night' : 'Nights'} ${listed(underived)} ${underived.length === 1 ? 'has' : 'have'} no current derived tables: their figures were computed from the views' definitions (the same numbers, slower). \`adsnap derive ROOT\` writes them.`;
    missing.push(said);
    process.stderr.write(`adsnap report: ${said}\n`);
  }
}

/** The macro naming the nights of the window without a current derived set (the variable report_viewed_nights, DATE[]): the definitions answer for them. */
const VIEWED_NIGHTS_MACRO = `CREATE OR REPLACE MACRO report_viewed(d) AS list_contains(getvariable('report_viewed_nights'), d)`;

/** Up to five nights by name, then how many more. */
function listed(nights: readonly string[]): string {
  return nights.length <= 5 ? nights.join(', ') : `${nights.slice(0, 5).join(', ')} and ${nights.length - 5} more`;
}

/** Sets a setup variable, its value bound; returns its statement for setup_sql. */
async function bind(db: Awaited<ReturnType<typeof openSnapshotDb>>, v: ReportVariable): Promise<string> {
  await setVariable(db.connection, v);
  return variableStatement(v);
}

/** With ADSNAP_REPORT_TIMING set: a step's time and the process's RSS after it, on stderr. */
const timing = stepTiming('ADSNAP_REPORT_TIMING');

/** ADSNAP_REPORT_MEMORY (a DuckDB size such as 768MB or 2GB), else 512MB: the consent section's joins (site_ai_consent, twelve hash joins and an ASOF join) ran out of 384MB on a 3-night series of a few hundred sites (test/derived.test.ts); 384MB held 30 nights × 100k sites at 838–851 MB peak before those figures existed. */
function memoryLimit(): string {
  const v = process.env.ADSNAP_REPORT_MEMORY?.trim();
  if (!v) return '512MB';
  if (!isDuckDbSize(v)) throw new Error(`ADSNAP_REPORT_MEMORY must be a size such as 768MB or 2GB, got '${v}'`);
  return v;
}

async function runFigure(db: Awaited<ReturnType<typeof openSnapshotDb>>, f: FigureDef, nights: number): Promise<FigureResult> {
  const base = { key: f.key, title: f.title, about: f.about, sql: f.sql, shareOf: f.shareOf };
  // A figure with no rows still gets its columns: every CSV has its header line.
  if (nights === 0) return empty(base, await columnsOf(db, f.sql), 'No night to report.');
  if (f.series && nights < 2) return empty(base, await columnsOf(db, f.sql), 'One night: this figure compares nights, and needs two or more. Crawl again on another day (adsnap crawl, same --out) and run the report again.');
  let reader;
  const t0 = performance.now();
  try {
    reader = await db.connection.runAndReadAll(f.sql);
    timing(f.key, t0);
  } catch (err) {
    throw new Error(`figure ${f.key}: ${(err as Error).message}`, { cause: err });
  }
  const columns = reader.columnNames();
  const rows: Row[] = reader.convertRowObjects(cellConverter);
  let note: string | null = rows.length === 0 ? 'No rows: nothing of this kind in the window.' : null;
  let svg: string | null = null;
  if (f.chart && rows.length > 0) {
    const drawn = chartRows(f.chart, rows);
    // A chart over time (snapshot dates on x) of one night is a dot or a single bar: say so and show the table.
    if (f.chart.x === 'snapshot_date' && nights < 2) note = `One night: the ${f.chart.kind === 'line' ? 'line' : 'bars'} over time need${f.chart.kind === 'line' ? 's' : ''} two or more nights (the table has the figures).`;
    else if (drawn.length === 0) note = `Nothing to chart: ${f.chart.only?.why ?? 'no row to draw'}.`;
    else {
      svg = await renderSvg(vegaLiteSpec(f.chart, f.title, drawn));
      note = leftOutNote(f.chart, rows);
    }
  }
  return { ...base, columns, rows, note, csv: toCsv(columns, rows), svg };
}

/**
 * A figure's CSV: RFC 4180 with a header line, and spreadsheet-safe (text/csv.ts): a text cell a
 * spreadsheet would run as a formula (sellers.json names, seller ids, domains as written: text
 * from the web) gets a leading ' and is quoted. report.json keeps the exact values.
 */
function toCsv(columns: string[], rows: Row[]): string {
  return csvText(columns, rows.map((r) => columns.map((c) => r[c] ?? null)), { spreadsheetSafe: true });
}

function empty(base: Pick<FigureResult, 'key' | 'title' | 'about' | 'sql' | 'shareOf'>, columns: string[], note: string): FigureResult {
  return { ...base, columns, rows: [], note, csv: columns.length > 0 ? toCsv(columns, []) : null, svg: null };
}

/** The columns a figure's SQL would give, from DuckDB's prepared statement (nothing run); none when it cannot be prepared (no night: no window macros). */
async function columnsOf(db: Awaited<ReturnType<typeof openSnapshotDb>>, sql: string): Promise<string[]> {
  try {
    const p = await db.connection.prepare(sql);
    return Array.from({ length: p.columnCount }, (_, i) => p.columnName(i));
  } catch {
    return [];
  }
}

