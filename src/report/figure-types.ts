/** The shape of the report's figures and sections (figures.ts lists them; sections/ defines them), and of their results. */
import type { Json } from '@duckdb/node-api';

export type ChartKind = 'line' | 'bar' | 'hbar' | 'stacked';

export interface ChartSpec {
  kind: ChartKind;
  /** Field on the x axis (line: a date; bar: a category; hbar: the value). */
  x: string;
  y: string;
  /** Field that splits the series or the stack. */
  color?: string;
  xTitle: string;
  yTitle: string;
  /** Values are shares in [0, 1]: the axis is drawn in percent. */
  percent?: boolean;
  /** Several columns drawn as series of one chart (their names become the legend); `y` is then ignored. */
  fold?: string[];
  /**
   * The chart draws only the rows whose `field` is one of the first `n` values of that field in
   * row order (the table, the CSV and report.json keep every row): 112 catalogue agents are a
   * table, not a legend.
   */
  top?: { field: string; n: number };
  /**
   * The chart draws only the rows `keep` accepts (before `top`); with `per`, every row of a value
   * of that field one of whose rows it accepts. The page says how many `unit` (rows, or values of
   * `per`) it left out and `why`. The table, the CSV and report.json keep every row.
   */
  only?: { keep: (row: Readonly<Record<string, unknown>>) => boolean; per?: string; unit: string; why: string };
  /** The legend's title and the words for its values (a folded column's name, a code) where the raw value would not read well. */
  legend?: { title: string; labels?: Record<string, string> };
  /** Fixed colours of the `color` field's values, in legend order (a value not listed gets none: list them all). */
  colors?: Record<string, string>;
}

export interface FigureDef {
  key: string;
  title: string;
  /** What is counted, in a sentence or two. */
  about: string;
  sql: string;
  chart?: ChartSpec;
  /** The figure compares nights: it needs two or more in the window. */
  series?: boolean;
  /** Rows shown in the page's table (all rows go to report.json and the CSV). */
  tableRows?: number;
  /**
   * Per share column, the columns of its numerator and denominator: the page shows the share as
   * "41.0% (170 of 415)" (page.ts). A share column without an entry is shown as a percentage.
   */
  shareOf?: Record<string, readonly [numerator: string, denominator: string]>;
}

export interface SectionDef {
  key: string;
  title: string;
  intro: string;
  figures: FigureDef[];
}

/** One row of a figure's result, as DuckDB gives it in JSON form. */
export type Row = Record<string, Json | null>;

export interface FigureResult {
  key: string;
  title: string;
  about: string;
  sql: string;
  columns: string[];
  rows: Row[];
  /** Why the figure has no chart or no rows, said on the page instead of an empty chart. */
  note: string | null;
  /** The CSV's text; null when the figure's columns are not known (no night: nothing to run it on), and then no CSV is written. */
  csv: string | null;
  /** The chart's SVG (index.html only; not in report.json). */
  svg: string | null;
  /** Share columns' numerator and denominator columns (FigureDef.shareOf; index.html only). */
  shareOf?: FigureDef['shareOf'];
}
