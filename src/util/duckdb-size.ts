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

/** Whether `err` is DuckDB running out of its memory_limit (what a larger limit may cure). */
export function isOutOfMemory(err: unknown): boolean {
  return /Out of Memory/i.test((err as Error)?.message ?? '');
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
      const next = i < tries && isOutOfMemory(err) ? doubledDuckDbSize(current) : null;
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

/** The variable DuckDB's jemalloc reads its options from, once, when the library is loaded. */
export const DUCKDB_ALLOCATOR_ENV = 'DUCKDB_JE_MALLOC_CONF';

/**
 * One jemalloc arena for the DuckDB of a process whose peak memory is budgeted: the crawl, whose
 * commit (the compaction, then the derived tables) sets its peak, and `adsnap verify`, whose two
 * batches at once do (1M requests: 852–906 → 746 MB peak RSS, and faster). jemalloc spreads threads over
 * 4 × cores arenas (DuckDB's workers, and the libuv thread the bindings run a statement on, which
 * need not be the same from one statement to the next), so the pages one table's sort freed are
 * still dirty (held for `dirty_decay_ms`, 10 s) in an arena the next table's sort may not use: the
 * compaction's RSS grew table by table to twice its `memory_limit`. With one arena the next
 * statement reuses them. A 20k-site commit (2 threads, 128MB): the compaction's own RSS 268–285 MB
 * → 166 MB, the derivation's 199–212 → 171–178 MB, in the same time (docs/performance.md).
 * Purging at once instead (`dirty_decay_ms:0`) gave 134 MB but made the compaction 27% slower.
 *
 * It takes effect only if it runs before DuckDB's library is loaded (a crawl loads it at its commit,
 * verify after its flags are read; test/library-export.test.ts checks both). A value the user set, even empty, is kept.
 */
export function oneDuckDbArena(env: NodeJS.ProcessEnv = process.env): void {
  env[DUCKDB_ALLOCATOR_ENV] ??= 'narenas:1';
}
