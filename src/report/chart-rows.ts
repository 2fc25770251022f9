/**
 * Which rows of a figure its chart draws (FigureDef.chart's `only` and `top`): the table, the CSV
 * and report.json keep every row, and the page says what the chart left out.
 */
import type { ChartSpec } from './figures.js';
import type { Row } from './figure-types.js';

/** The rows `chart.only` keeps: those it accepts, or with `per` every row of a value one of whose rows it accepts. */
function onlyRows(chart: ChartSpec, rows: Row[]): Row[] {
  const only = chart.only;
  if (!only) return rows;
  if (!only.per) return rows.filter(only.keep);
  const per = only.per;
  const kept = new Set(rows.filter(only.keep).map((r) => JSON.stringify(r[per] ?? null)));
  return rows.filter((r) => kept.has(JSON.stringify(r[per] ?? null)));
}

/** What `chart.only` left out, said under the chart; null when nothing. */
export function leftOutNote(chart: ChartSpec, rows: Row[]): string | null {
  if (!chart.only) return null;
  const count = (rs: Row[]) => (chart.only!.per ? new Set(rs.map((r) => JSON.stringify(r[chart.only!.per!] ?? null))).size : rs.length);
  const all = count(rows);
  const left = all - count(onlyRows(chart, rows));
  return left > 0 ? `The chart leaves out ${left.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} ${chart.only.unit}: ${chart.only.why}.` : null;
}

/** The rows a chart draws: those `only` keeps, then those whose `top.field` is one of the first `top.n` values of it in row order. */
export function chartRows(chart: ChartSpec, all: Row[]): Row[] {
  const rows = onlyRows(chart, all);
  const top = chart.top;
  if (!top) return rows;
  const kept = new Set<string>();
  for (const r of rows) {
    const v = JSON.stringify(r[top.field] ?? null);
    if (!kept.has(v) && kept.size < top.n) kept.add(v);
  }
  return rows.filter((r) => kept.has(JSON.stringify(r[top.field] ?? null)));
}
