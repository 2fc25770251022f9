/** A DuckDB memory size as `SET memory_limit` takes it: a number and a unit ('384MB', '1.5GB', '512MiB'). */
const SIZE = /^(\d+(?:\.\d+)?)\s*([KMGT]i?B)$/i;

export function isDuckDbSize(size: string): boolean {
  return SIZE.test(size.trim());
}

/** The size doubled ('128MB' → '256MB'), or null when it is not a DuckDB size. */
export function doubledDuckDbSize(size: string): string | null {
  const m = SIZE.exec(size.trim());
  return m ? `${Number(m[1]) * 2}${m[2]}` : null;
}
