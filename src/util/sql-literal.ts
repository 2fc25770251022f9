/**
 * The one SQL string literal of adsnap's generated SQL (DuckDB): the text in single quotes, each
 * single quote doubled (SQL:2016 §5.3 <character string literal>; DuckDB follows it). Values a
 * user gives are bound as parameters instead; this is for SQL text built from names and paths
 * adsnap chose (COPY targets, KV metadata, generated macros), where DuckDB takes no parameter.
 */
export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A DuckDB list literal of strings: `['a', 'b']`. */
export function sqlStringList(texts: readonly string[]): string {
  return `[${texts.map(sqlString).join(', ')}]`;
}
