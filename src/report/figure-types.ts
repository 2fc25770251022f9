/** The shape of the report's figures and sections (figures.ts lists them; sections/ defines them). */
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
}

export interface SectionDef {
  key: string;
  title: string;
  intro: string;
  figures: FigureDef[];
}
