/**
 * The headline figures (view headline_figures of sql/views.sql; their words in
 * docs/reference/figures.md): read for one night with the night bound as a parameter, and put
 * into words once, so that the crawl's summary and the report say the same thing.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { intervalText, percentText } from '../text/percent.js';
import { sqlString, sqlStringList } from '../util/sql-literal.js';

/** The stable keys of report.json's `headline`, in the order they are shown. */
export const HEADLINE_KEYS = [
  'adstxt_declaring',
  'adstxt_valid',
  'adstxt_placeholder_only_sites',
  'app_ads_declaring',
  'ad_systems_distinct_root',
  'ad_companies_distinct_root',
  'direct_record_share_root',
  'ownerdomain_declaring',
  'sellers_json_readable_ad_systems',
  'seller_id_not_found_root',
] as const;
export type HeadlineKey = (typeof HEADLINE_KEYS)[number];

/** A share carries n, its denominator and its Wilson 95% interval; a count only its value. */
export interface HeadlineFigure {
  value: number | null;
  n?: number;
  denominator?: number;
  ci95?: [number, number] | null;
  scope: string;
  definition: string;
}

/** What each figure is called, on the page and in the summary. */
const LABELS: Record<HeadlineKey, string> = {
  adstxt_declaring: 'Sites declaring an ads.txt',
  adstxt_valid: 'Sites with a valid ads.txt',
  adstxt_placeholder_only_sites: 'Sites with only the placeholder record',
  app_ads_declaring: 'Apps declaring an app-ads.txt',
  ad_systems_distinct_root: 'Ad systems named (domains)',
  ad_companies_distinct_root: 'Ad systems named (companies)',
  direct_record_share_root: 'DIRECT records',
  ownerdomain_declaring: 'Declaring sites with OWNERDOMAIN',
  sellers_json_readable_ad_systems: 'Ad systems with a readable sellers.json',
  seller_id_not_found_root: 'Seller ids not found in sellers.json',
};

/**
 * The SQL of the headline figures of the night `night` (a SQL expression of type DATE), in
 * HEADLINE_KEYS order, each with its label (the words of the summary and the page: constants of
 * this module, not values). `source`: where the night's headline_figures rows are read from (the
 * report reads them once into a temp table that other figures quote beside their own numbers).
 */
export function headlineSql(night: string, source = `headline_figures_at(${night})`): string {
  const order = sqlStringList(HEADLINE_KEYS);
  const labels = HEADLINE_KEYS.map((k) => `(${sqlString(k)}, ${sqlString(LABELS[k])})`).join(', ');
  return `SELECT h.key, l.label, h.value, h.n, h.denominator, h.ci95, h.scope, h.definition
FROM ${source} h LEFT JOIN (VALUES ${labels}) l(key, label) USING (key)
ORDER BY list_position(${order}, h.key), h.key`;
}

/** The headline rows (key, value, n, …) as report.json's `headline` object: every key, a share's interval as [lo, hi]. */
export function headlineObject(rows: readonly Record<string, unknown>[]): Record<HeadlineKey, HeadlineFigure> {
  const byKey = new Map(rows.map((r) => [String(r.key), r]));
  const out = {} as Record<HeadlineKey, HeadlineFigure>;
  for (const key of HEADLINE_KEYS) {
    const r = byKey.get(key);
    const base = { value: num(r?.value), scope: String(r?.scope ?? ''), definition: String(r?.definition ?? '') };
    if (r === undefined || r.denominator === null || r.denominator === undefined) out[key] = base;
    else {
      const ci = Array.isArray(r.ci95) ? (r.ci95.map(num) as [number, number]) : null;
      out[key] = { ...base, n: num(r.n) ?? 0, denominator: num(r.denominator) ?? 0, ci95: ci };
    }
  }
  return out;
}

/** Reads the headline figures of `night` (YYYY-MM-DD) over a connection with the views loaded. */
export async function readHeadline(db: DuckDBConnection, night: string): Promise<Record<HeadlineKey, HeadlineFigure>> {
  const reader = await db.runAndReadAll(headlineSql('CAST($1 AS DATE)'), [night]);
  return headlineObject(reader.getRowObjectsJS() as Record<string, unknown>[]);
}

/** One line per figure, the words the summary prints: `label: value (n of d; 95% CI lo–hi) [scope]`. */
export function headlineLines(h: Record<HeadlineKey, HeadlineFigure>): string[] {
  return HEADLINE_KEYS.map((key) => `  ${(LABELS[key] + ':').padEnd(42)} ${headlineValue(h[key])}  [${h[key].scope}]`);
}

/** A figure's value in words: a count, or a percentage with its n, denominator and interval. */
export function headlineValue(f: HeadlineFigure): string {
  if (f.value === null) return 'n/a';
  if (f.denominator === undefined) return f.value.toLocaleString('en-US');
  const ci = f.ci95 ? `; 95% CI ${intervalText(f.ci95[0], f.ci95[1])}` : '';
  return `${percentText(f.value)} (${(f.n ?? 0).toLocaleString('en-US')} of ${f.denominator.toLocaleString('en-US')}${ci})`;
}

/** The label of a headline key. */
export const headlineLabel = (key: HeadlineKey): string => LABELS[key];

function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'bigint' ? Number(v) : Number(v);
}
