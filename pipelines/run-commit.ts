/**
 * The commit of a crawl, after its work: compaction into the reader's layout, the plan, the
 * publishing, the manifest, the staging folder's removal; each step redoable from the run's
 * checkpoint (src/sink/commit.ts; docs/design.md, "The commit").
 */
import { performance } from 'node:perf_hooks';
import { tableNames } from '../schemas/tables.js';
import { DEFAULT_COMMIT_MEMORY, compactStaged } from '../src/sink/compact.js';
import { planCommit, planTables, publishPlan, writeRunManifest, type StagedPart } from '../src/sink/index.js';
import type { RunLock } from '../src/store/run-lock.js';
import type { CrawlOptions, CrawlResult } from './crawl-options.js';
import type { RunJournal } from './run-journal.js';
import type { CommitState, RunManifest } from './run-state.js';
import type { RunStats } from './run-stats.js';
import { writeShardReport } from './shard-exchange.js';

/**
 * The night's derived tables (src/report/derived.ts), loaded when the commit reaches them: the
 * report's SQL layer and DuckDB stay out of the crawl's module graph (a crawl maps DuckDB only for
 * its commit; .dependency-cruiser.cjs).
 */
async function deriveCommittedNight(outDir: string, night: string, memoryLimit: string): Promise<unknown> {
  const { deriveNight } = await import('../src/report/derived.js');
  return deriveNight(outDir, night, { memoryLimit, memoryDoublings: COMMIT_DERIVE_DOUBLINGS });
}

/** The doublings of the commit's limit its derivation may take: up to 16 times (2 GB from the default 128MB), as a table needs it. */
export const COMMIT_DERIVE_DOUBLINGS = 4;

/** Whether this commit completes its night: every run of an unsharded crawl; of a sharded one, the last stage's (intermediaries), once for the union. */
function completesNight(manifest: RunManifest): boolean {
  return !manifest.shard || manifest.shard.stage === 'intermediaries';
}

/**
 * Step 1 of the commit: the staged parts are rewritten into the reader's layout (one sorted part
 * per table, or per range of a big table's key: src/sink/compact.ts), then the plan is saved
 * (phase 'commit'). Redone from the sealed parts after a kill: their list is what phase 'compact' saved.
 */
export async function compactAndCommit(options: CrawlOptions, journal: RunJournal, lock: RunLock, state: CommitState, stats: RunStats, resumed: boolean): Promise<CrawlResult> {
  const manifest = state.manifest;
  await commitPause(options)('sealed');
  const t0 = performance.now();
  // The commit's own memory (DuckDB's sort is native memory): sampled, as the run's peak hides it.
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
  let parts: StagedPart[];
  try {
    parts = options.compact === false ? state.staged : await compactStaged(state.staged, { stagingDir: journal.dir, runId: manifest.run_id, snapshotDate: manifest.snapshot_date, memoryLimit: commitMemory(options) });
  } finally {
    clearInterval(sampler);
  }
  state.manifest = { ...state.manifest, commit_compact_s: Math.round(performance.now() - t0) / 1000, commit_peak_rss_mb: Math.round(peakRss / 2 ** 20) };
  state.staged = parts;
  state.commit = await planCommit(options.outDir, manifest.snapshot_date, parts);
  state.phase = 'commit';
  await lock.assertHeld();
  await journal.save(state);
  return finishCommit(options, journal, lock, state, stats, resumed);
}

/**
 * Steps 2–4 of the commit (src/sink/commit.ts): publish the planned parts, write the manifest,
 * remove the staging folder. Each can be redone: a resumed run in phase 'commit' starts here.
 */
export async function finishCommit(options: CrawlOptions, journal: RunJournal, lock: RunLock, state: CommitState, stats: RunStats, resumed: boolean): Promise<CrawlResult> {
  const plan = state.commit!;
  const pause = commitPause(options);
  await pause('planned');
  await publishPlan(options.outDir, journal.dir, plan, async () => {
    await lock.assertHeld();
    await journal.save(state);
  }, { afterLink: () => pause('linked') });
  const tables = planTables(plan, tableNames);
  const manifest = state.manifest;
  stats.finished();
  await lock.assertHeld();
  const manifestPath = await writeRunManifest(options.outDir, manifest.run_id, {
    ...manifest,
    attempts: state.attempt,
    counts: stats.snapshot(),
    resources: resourceFigures(manifest),
    tables,
    finished_at: new Date().toISOString(),
  });
  await pause('manifest');
  // The night's derived tables (the vocabulary materialized: src/report/derived.ts), written after the manifest.
  // Without them (a failure, a kill before them) readers use the definitions for this night and
  // `adsnap derive` writes them later: nothing is lost. They start under the commit's limit, as
  // the compaction does: a table that needs more (some of a 100k-site night's joins) is written
  // again under twice the limit, which holds for the tables after it. Starting higher for every
  // night cost about 90 MB more peak RSS at 20k sites, where every table fits (docs/performance.md).
  if (completesNight(manifest)) {
    await deriveCommittedNight(options.outDir, manifest.snapshot_date, commitMemory(options)).catch((err: Error) =>
      process.stderr.write(`adsnap crawl: no derived tables for ${manifest.snapshot_date} (${err.message}); readers use the views' definitions for this night until \`adsnap derive ${options.outDir}\` writes them\n`),
    );
  }
  const sr = state.shardReport;
  if (sr && options.shard) await writeShardReport(options.outDir, manifest.snapshot_date, options.shard, sr.stage, sr.report);
  await journal.remove();
  return { runId: manifest.run_id, snapshotDate: manifest.snapshot_date, manifestPath, stats, list: manifest.list ?? null, appList: manifest.app_list ?? null, tables, alreadyComplete: false, resumed };
}

/** DuckDB's memory limit for the commit's steps (the compaction, the night summary). */
function commitMemory(options: CrawlOptions): string {
  return options.commitMemory ?? DEFAULT_COMMIT_MEMORY;
}

/**
 * Kill-during-commit drills (`CrawlOptions.commitPause`): a pause after each step of the commit
 * (`sealed`; `planned`: the plan saved; `linked`: each part linked; `manifest`: the manifest
 * written), or only after those named, said on stderr, so a test can SIGKILL the process at each.
 */
export function commitPause(options: Pick<CrawlOptions, 'commitPause'>): (step: string) => Promise<void> {
  const ms = options.commitPause?.ms ?? 0;
  if (!(ms > 0)) return async () => {};
  const only = options.commitPause?.steps ?? null;
  return async (step) => {
    process.stderr.write(`adsnap crawl: commit step ${step}\n`);
    if (!only || only.includes(step)) await new Promise((r) => setTimeout(r, ms));
  };
}

/** CPU and peak memory of this process (worker threads included): the figures capacity planning needs. */
export function processResources(): ProcessResources {
  const ru = process.resourceUsage();
  return { cpu_user_s: ru.userCPUTime / 1e6, cpu_system_s: ru.systemCPUTime / 1e6, max_rss_mb: Math.round(ru.maxRSS / 1024) };
}

interface ProcessResources {
  cpu_user_s: number;
  cpu_system_s: number;
  max_rss_mb: number;
}

/**
 * The run's CPU and peak memory: this process's, and when the crawl ran in a process of its own
 * (`untilSealed`, the manifest's `crawl_process`), the CPU of both and the larger peak.
 */
function resourceFigures(manifest: RunManifest): ProcessResources {
  const own = processResources();
  const crawl = manifest.crawl_process;
  if (!crawl) return own;
  return { cpu_user_s: own.cpu_user_s + crawl.cpu_user_s, cpu_system_s: own.cpu_system_s + crawl.cpu_system_s, max_rss_mb: Math.max(own.max_rss_mb, crawl.max_rss_mb) };
}

/** What crawl() returns for a run stopped once sealed (`untilSealed`): nothing committed yet. */
export function sealedOnly(state: CommitState, stats: RunStats, resumed: boolean): CrawlResult {
  const m = state.manifest;
  return { runId: m.run_id, snapshotDate: m.snapshot_date, manifestPath: '', stats, list: m.list ?? null, appList: m.app_list ?? null, tables: {}, alreadyComplete: false, resumed, sealedOnly: true };
}

