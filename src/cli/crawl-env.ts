/**
 * The environment variables a crawl reads, read once here, at the edge, into its options: nothing
 * below the CLI reads `process.env`. Each is a tuning knob or a test drill, not a flag:
 * - `ADSNAP_ROW_GROUP_ROWS`: rows per Parquet row group (the writer's memory; docs/reference/parquet.md);
 * - `ADSNAP_COMMIT_MEMORY`: DuckDB's memory limit for the commit (src/sink/compact.ts);
 * - `ADSNAP_COMMIT_STEP_DELAY_MS`, `ADSNAP_COMMIT_PAUSE_STEPS`: kill-during-commit drills (pipelines/run-commit.ts);
 * - `ADSNAP_COMMIT_PROCESS=same`: crawl and commit in one process; read by crawl-process.ts, with
 *   `ADSNAP_CRAWL_CHILD`, which that module sets for the crawling child.
 * A bad value is a UsageError naming the variable (exit 2), before anything is created.
 */
import type { CrawlOptions } from '../../pipelines/crawl-options.js';
import { isDuckDbSize } from '../util/duckdb-size.js';
import { UsageError } from './usage-error.js';

type Env = Readonly<Record<string, string | undefined>>;

export function crawlEnv(env: Env): Pick<CrawlOptions, 'rowGroupRows' | 'commitMemory' | 'commitPause'> {
  const rows = env.ADSNAP_ROW_GROUP_ROWS;
  const memory = env.ADSNAP_COMMIT_MEMORY;
  const delay = env.ADSNAP_COMMIT_STEP_DELAY_MS;
  if (rows !== undefined && !/^[1-9]\d{0,7}$/.test(rows)) throw new UsageError(`ADSNAP_ROW_GROUP_ROWS must be a whole number of rows, got ${JSON.stringify(rows)}`);
  if (memory !== undefined && !isDuckDbSize(memory)) throw new UsageError(`ADSNAP_COMMIT_MEMORY must be a size such as 128MB or 1GB, got ${JSON.stringify(memory)}`);
  if (delay !== undefined && !/^\d{1,9}$/.test(delay)) throw new UsageError(`ADSNAP_COMMIT_STEP_DELAY_MS must be a whole number of milliseconds, got ${JSON.stringify(delay)}`);
  return {
    ...(rows !== undefined ? { rowGroupRows: Number(rows) } : {}),
    ...(memory !== undefined ? { commitMemory: memory.trim() } : {}),
    ...(delay !== undefined && Number(delay) > 0 ? { commitPause: { ms: Number(delay), steps: env.ADSNAP_COMMIT_PAUSE_STEPS?.split(',').map((x) => x.trim()) ?? null } } : {}),
  };
}
