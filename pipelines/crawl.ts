/**
 * `crawl()`: one attempt of a crawl run. Decides the run (its id, its stage of a sharded
 * snapshot), takes its lock, and either finds it complete, finishes an interrupted commit, or
 * opens the run (crawl-run.ts) and walks the plan of its steps (crawl-plan.ts).
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { sweepTemporaryParts } from '../src/sink/index.js';
import { fingerprintFile } from '../src/sources/fingerprint.js';
import { RunLock } from '../src/store/run-lock.js';
import type { Stage } from './shard-exchange.js';
import { deriveRunId, RunJournal } from './run-journal.js';
import { RunStats } from './run-stats.js';
import { sellersIdentity } from './sellers-rounds.js';
import { validateCrawlOptions, type CrawlOptions, type CrawlResult } from './crawl-options.js';
import { alreadyComplete, checkSameInputs, readInputs } from './run-inputs.js';
import { compactAndCommit, finishCommit } from './run-commit.js';
import { CrawlRun } from './crawl-run.js';
import { runPlan } from './crawl-plan.js';

export type { CrawlOptions, CrawlResult } from './crawl-options.js';
export { CRAWL_LIMITS, EmptyListError, validateCrawlOptions } from './crawl-options.js';
export { RunInputChangedError } from './run-inputs.js';

export async function crawl(options: CrawlOptions): Promise<CrawlResult> {
  validateCrawlOptions(options);
  const snapshotDate = options.snapshotDate ?? new Date().toISOString().slice(0, 10);
  const shard = options.shard ?? null;
  const stage: Stage | 'all' = shard ? (options.stage ?? 'targets') : 'all';
  const runId = options.runId ?? deriveRunId(snapshotDate, runIdentity(options, stage));
  const stats = options.stats ?? new RunStats();
  const manifestFile = path.join(options.outDir, '_runs', `${runId}.json`);
  // Reading only, so far: a list that cannot be read fails here, before anything is created.
  const fileFingerprints = {
    domains: options.domains && options.domains !== '-' ? await fingerprintFile(options.domains) : null,
    apps: options.apps && options.apps !== '-' ? await fingerprintFile(options.apps) : null,
  };
  if (existsSync(manifestFile) && !options.restart) {
    const result = await alreadyComplete(options, runId, snapshotDate, manifestFile, stats, fileFingerprints);
    // An attempt killed after its manifest (the run is complete) may have left its staging folder.
    if (existsSync(path.join(options.outDir, '_staging', `${runId}.lock`)) || existsSync(path.join(options.outDir, '_staging', runId))) {
      const lock = await RunLock.acquire(path.join(options.outDir, '_staging'), runId, options.lock);
      await rm(path.join(options.outDir, '_staging', runId), { recursive: true, force: true }).finally(() => lock.release());
    }
    return result;
  }

  const lock = await RunLock.acquire(path.join(options.outDir, '_staging'), runId, options.lock);
  try {
    if (existsSync(manifestFile) && !options.restart) {
      // Finished by the attempt whose lock this one just took over, after the check above.
      await rm(path.join(options.outDir, '_staging', runId), { recursive: true, force: true });
      return await alreadyComplete(options, runId, snapshotDate, manifestFile, stats, fileFingerprints);
    }
    // We hold the run's lock: temporary files of this run are those of attempts that died.
    await sweepTemporaryParts(options.outDir, runId);
    const journal = await RunJournal.open(options.outDir, runId, { restart: options.restart });
    const inputs = await readInputs(options, journal.dir, fileFingerprints);
    const saved = journal.previous;
    if (saved) checkSameInputs(saved, inputs.fingerprints);
    if (saved?.phase === 'compact' || saved?.phase === 'commit') {
      stats.restore(saved.stats);
      stats.phase = 'committing';
      return saved.phase === 'compact' ? await compactAndCommit(options, journal, lock, saved, stats, true) : await finishCommit(options, journal, lock, saved, stats, true);
    }
    return await runPlan(await CrawlRun.open(options, { runId, snapshotDate, shard, stage, stats, journal, lock, inputs }));
  } finally {
    await lock.release();
  }
}

/** What makes two invocations "the same run" (and so resumable into one snapshot). */
function runIdentity(o: CrawlOptions, stage: Stage | 'all'): Record<string, unknown> {
  const abs = (p: string | null | undefined) => (p && p !== '-' ? path.resolve(p) : (p ?? null));
  return {
    domains: abs(o.domains),
    apps: abs(o.apps),
    limit: o.limit ?? null,
    zipEntry: o.zipEntry ?? null,
    obeyRobots: o.obeyRobots ?? 'store',
    // Named only when not the default, so that the ids of runs started before the option stay the same.
    ...(o.robotsSemantics === 'google' ? { robotsSemantics: 'google' } : {}),
    sellers: o.sellers !== false,
    ...sellersIdentity(o),
    ...(o.shard ? { shard: `${o.shard.index}/${o.shard.count}`, stage } : {}),
  };
}
