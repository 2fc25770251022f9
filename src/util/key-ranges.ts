/**
 * Ranges of a sort key, for the steps that would otherwise hold a whole night in memory: the
 * commit's compaction sorts a big table one range of its first key at a time (src/sink/compact.ts),
 * and the derivation writes its ranged tables one range of subjects at a time (src/report/derived.ts).
 * A range is [lo, hi), NULL unbounded; the ranges cut at the quantiles of a repeatable sample, so
 * each holds about as many rows, and together they hold every row exactly once (NULL keys in the last).
 */

/** The size of the sample the cuts are taken from. */
const SAMPLE_ROWS = 100_000;

/**
 * The cuts of `ranges` ranges of `column` over `from` (a table expression): one row, `bounds`, a
 * list of at most ranges − 1 values in ascending order.
 */
export const rangeBoundsSql = (ranges: number, column: string, from: string): string =>
  `SELECT quantile_disc(${column}, [${Array.from({ length: ranges - 1 }, (_, i) => `${i + 1}/${ranges}`).join(', ')}]) AS bounds
FROM (SELECT ${column} FROM (SELECT ${column} FROM ${from}) USING SAMPLE reservoir(${SAMPLE_ROWS} ROWS) REPEATABLE (1))`;

export type KeyRange = [lo: string | null, hi: string | null];

/**
 * The ranges between the cuts `bounds` (rangeBoundsSql's, in DuckDB's order; a repeated cut, from a
 * key that fills more than one quantile, is one cut): [NULL, b1), [b1, b2), …, [bn, NULL).
 */
export function rangesBetween(bounds: readonly unknown[]): KeyRange[] {
  const cuts = [...new Set(bounds.filter((b): b is string => typeof b === 'string'))];
  const edges = [null, ...cuts, null];
  return edges.slice(1).map((hi, i) => [edges[i]!, hi]);
}

/** A filter on `column` for the range [lo, hi): the last range (hi NULL) also holds the NULL keys, which sort last. */
export function inRangeSql(column: string, [lo, hi]: KeyRange, literal: (s: string) => string): string {
  const above = lo === null ? null : `${column} >= ${literal(lo)}`;
  if (hi === null) return above === null ? 'true' : `(${above} OR ${column} IS NULL)`;
  return above === null ? `${column} < ${literal(hi)}` : `${above} AND ${column} < ${literal(hi)}`;
}
