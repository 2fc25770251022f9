/** A SQL string literal: the text in single quotes, each single quote doubled. */
export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
