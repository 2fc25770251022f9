/**
 * Charts as static SVG, drawn by Vega-Lite (compiled to Vega, rendered by Vega's own SVG string
 * renderer, `view.toSVG()`): no browser, no DOM, no canvas, nothing fetched. Vega-Lite because a
 * chart is a small declarative JSON spec (easy to read, review and test), its defaults follow
 * perception research (Vega's authors), and the SVG it writes is plain markup that prints and
 * scales on a phone. Observable Plot would need a server-side DOM to do the same.
 */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { visible } from '../text/visible.js';
import type { ChartSpec } from './figures.js';

const WIDTH = 560;
/** Snapshot dates are UTC calendar days: one tick per day at most, labelled as dates in UTC. */
const DAY_AXIS = { format: '%Y-%m-%d', labelAngle: -30, tickCount: { interval: 'day', step: 1 }, labelOverlap: true } as const;
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif';

/**
 * The Vega-Lite spec of a figure's chart over its rows. The chart's title is the figure's heading
 * on the page (and the SVG's accessible name, page.ts), so the spec carries it as a description.
 */
export function vegaLiteSpec(chart: ChartSpec, title: string, rows: readonly Record<string, unknown>[]): TopLevelSpec {
  const values = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])));
  const measured = chart.kind === 'hbar' ? chart.x : chart.y;
  const percent = valueAxis(chart, values.map((r) => r[measured]));
  const temporal = chart.kind === 'line' || (chart.kind === 'stacked' && /date/.test(chart.x));
  const config = {
    font: FONT,
    view: { stroke: null },
    axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e5e7eb' },
    // The y title written across, above the axis: a long title with its units, read without
    // turning the head, and never taller than the plot.
    axisY: { titleAngle: 0, titleAlign: 'left' as const, titleAnchor: 'end' as const, titleBaseline: 'bottom' as const, titleX: 0, titleY: -8, titleLimit: 520 },
    legend: { labelFontSize: 11, titleFontSize: 12, orient: 'bottom' as const, columns: 3, labelLimit: 260 },
  };
  const base = { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', description: title, data: { values }, width: WIDTH, config, background: 'white' };
  // Series in the order the query gives them (rank buckets by rank, not alphabetically); folded
  // columns are series named after the column.
  const seriesField = chart.fold ? 'series' : chart.color;
  const palette = chart.colors && chart.color ? fixedColors(chart.colors, new Set(values.map((r) => r[chart.color!]))) : {};
  const legend = chart.legend?.labels ? { legend: { labelExpr: `${JSON.stringify(chart.legend.labels)}[datum.label] || datum.label` } } : {};
  const legendTitle = chart.legend?.title ?? seriesField?.replace(/_/g, ' ');
  const color = seriesField ? { color: { field: seriesField, type: 'nominal' as const, title: legendTitle, sort: null, ...palette, ...legend } } : {};
  const fold = chart.fold ? { transform: [{ fold: chart.fold, as: ['series', measured] as [string, string] }] } : {};
  switch (chart.kind) {
    case 'line':
      return {
        ...base,
        height: 260,
        ...fold,
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: chart.x, type: 'temporal', timeUnit: 'utcyearmonthdate', scale: { type: 'utc' }, title: chart.xTitle, axis: DAY_AXIS },
          y: { field: chart.y, type: 'quantitative', title: chart.yTitle, ...percent },
          ...color,
        },
      } as TopLevelSpec;
    case 'bar':
      return {
        ...base,
        height: 240,
        mark: { type: 'bar' },
        encoding: {
          x: { field: chart.x, type: 'nominal', title: chart.xTitle, sort: '-y', axis: { labelAngle: -30, labelLimit: 160 } },
          y: { field: chart.y, type: 'quantitative', title: chart.yTitle, ...percent },
          ...color,
        },
      } as TopLevelSpec;
    case 'hbar':
      return {
        ...base,
        height: { step: 16 },
        ...fold,
        mark: { type: 'bar' },
        encoding: {
          y: { field: chart.y, type: 'nominal', title: chart.yTitle, sort: '-x', axis: { labelLimit: 220 } },
          x: { field: chart.x, type: 'quantitative', title: chart.xTitle, ...percent },
          ...color,
        },
      } as TopLevelSpec;
    case 'stacked':
      return {
        ...base,
        height: 260,
        mark: { type: 'bar' },
        encoding: {
          x: temporal
            ? { field: chart.x, type: 'ordinal', timeUnit: 'utcyearmonthdate', title: chart.xTitle, axis: { format: '%Y-%m-%d', labelAngle: -30 } }
            : { field: chart.x, type: 'nominal', title: chart.xTitle, axis: { labelAngle: 0 } },
          y: { field: chart.y, type: 'quantitative', title: chart.yTitle, stack: true },
          ...color,
        },
      } as TopLevelSpec;
  }
}

/**
 * The measured axis: shares in percent; counts as whole numbers with thousands separators, never
 * a tick between two integers (an axis of 0.2, 0.4… records, or six ticks all reading 0.000000
 * when every value is 0: then the scale runs 0 to 1, and the bars are visibly empty).
 */
function valueAxis(chart: ChartSpec, values: unknown[]): { axis: Record<string, unknown>; scale?: Record<string, unknown> } {
  if (chart.percent) return { axis: { format: '.0%' } };
  const allZero = values.length > 0 && values.every((v) => v === 0 || v === null);
  return { axis: { format: ',d', tickMinStep: 1 }, ...(allZero ? { scale: { domain: [0, 1] } } : {}) };
}

/** A colour scale of the values present, in the order and colours given (a legend lists only what is drawn). */
function fixedColors(colors: Record<string, string>, present: Set<unknown>): { scale: { domain: string[]; range: string[] } } {
  const kept = Object.entries(colors).filter(([v]) => present.has(v));
  return { scale: { domain: kept.map(([v]) => v), range: kept.map(([, c]) => c) } };
}

/** Renders a Vega-Lite spec to an SVG document string. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Dates come from DuckDB as JS Dates or strings; Vega wants ISO text and plain numbers. Labels from the web show their control characters (text/visible.ts); Vega escapes their markup. */
function plain(v: unknown): unknown {
  if (typeof v === 'string') return visible(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'bigint') return Number(v);
  return v;
}
