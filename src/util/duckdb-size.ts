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

/**
 * Settings every DuckDB adsnap opens starts with. `allocator_background_threads`: DuckDB's
 * allocator (jemalloc) hands the memory freed by a finished operator back to the system from a
 * background thread; without it, freed pages stay mapped to the process until a later operator
 * reuses them, and the RSS runs far over `memory_limit` (a 100k-site night's derivation under
 * 256 MB: 546–588 MB RSS without, 451–474 MB with; docs/performance.md).
 */
export const DUCKDB_BASE_CONFIG: Readonly<Record<string, string>> = { allocator_background_threads: 'true' };
