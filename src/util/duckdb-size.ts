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

/**
 * Runs `step` under `limit`, and again under twice the limit while DuckDB runs out of memory (at
 * most `tries` times): a night is never lost to the memory bound, which only costs memory where a
 * night needs it. `onRetry` is told of each larger limit.
 */
export async function withMemoryRetry<T>(limit: string, step: (limit: string) => Promise<T>, onRetry: (next: string, err: Error) => void, tries = 4): Promise<T> {
  let current = limit;
  for (let i = 1; ; i++) {
    try {
      return await step(current);
    } catch (err) {
      const next = i < tries && /Out of Memory/i.test((err as Error)?.message ?? '') ? doubledDuckDbSize(current) : null;
      if (next === null) throw err;
      onRetry(next, err as Error);
      current = next;
    }
  }
}
