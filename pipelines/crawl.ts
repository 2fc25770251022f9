/**
 * `crawl()`: one attempt of a crawl run. Decides the run (its id, its stage of a sharded
 * snapshot), takes its lock, and either finds it complete, finishes an interrupted commit, or
 * opens the run (crawl-run.ts) and walks the plan of its steps (crawl-plan.ts).
 */
import { existsSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { today } from '../src/util/calendar-date.js';
import { sweepTemporaryParts } from '../src/sink/index.js';
import { fingerprintFile } from '../src/sources/fingerprint.js';
import { RunLock, RunLockedError } from '../src/store/run-lock.js';
import type { Stage } from './shard-exchange.js';
import { deriveRunId, RunJournal } from './run-journal.js';
import { inCommit } from './run-state.js';
import { RunStats } from './run-stats.js';
import { sellersIdentity } from './sellers-rounds.js';
import { EmptyListError, validateCrawlOptions, type CrawlOptions, type CrawlResult } from './crawl-options.js';
import { alreadyComplete, checkSameInputs, readInputs, type RunInputs } from './run-inputs.js';
import { checkListsHaveEntries } from './list-check.js';
import { compactAndCommit, finishCommit, sealedOnly } from './run-commit.js';
import { CrawlRun } from './crawl-run.js';
import { runPlan } from './crawl-plan.js';

export type { CrawlOptions, CrawlResult } from './crawl-options.js';
export { CRAWL_LIMITS, EmptyListError, validateCrawlOptions } from './crawl-options.js';
export { RunInputChangedError } from './run-inputs.js';

export async function crawl(options: CrawlOptions): Promise<CrawlResult> {
  validateCrawlOptions(options);
  const snapshotDate = options.snapshotDate ?? today();
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
  // Bad input at the edge: a list file with no accepted entry is refused before anything is created.
  await checkListsHaveEntries(options, { domains: fileList(options.domains), apps: fileList(options.apps) });
  const outExisted = existsSync(options.outDir);
  if (existsSync(manifestFile) && !options.restart) {
    const result = await alreadyComplete(options, runId, snapshotDate, manifestFile, stats, fileFingerprints);
    await removeLeftStaging(options, runId);
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
    if (options.domains === '-' || options.apps === '-') await checkStdinList(options, inputs, journal);
    if (saved && inCommit(saved)) {
      if (saved.stats) stats.restore(saved.stats);
      stats.enter(saved.phase);
      if (saved.phase === 'compact' && options.untilSealed) return sealedOnly(saved, stats, true);
      return saved.phase === 'compact' ? await compactAndCommit(options, journal, lock, saved, stats, true) : await finishCommit(options, journal, lock, saved, stats, true);
    }
    return await runPlan(await CrawlRun.open(options, { runId, snapshotDate, shard, stage, stats, journal, lock, inputs }));
  } catch (err) {
    if (err instanceof EmptyListError) {
      // Refused stdin: what this attempt made goes with it (folders that hold anything else stay).
      await lock.release();
      for (const dir of [path.join(options.outDir, '_staging'), ...(outExisted ? [] : [options.outDir])]) await rmdir(dir).catch(() => undefined);
    }
    throw err;
  } finally {
    await lock.release();
  }
}

/**
 * An attempt killed after its manifest (the run is complete) may have left its staging folder;
 * one still alive is cleaning it up itself, and the run is complete all the same (exit 0).
 */
async function removeLeftStaging(options: CrawlOptions, runId: string): Promise<void> {
  if (!existsSync(path.join(options.outDir, '_staging', `${runId}.lock`)) && !existsSync(path.join(options.outDir, '_staging', runId))) return;
  const lock = await RunLock.acquire(path.join(options.outDir, '_staging'), runId, options.lock).catch((err: unknown) => {
    if (err instanceof RunLockedError) return null;
    throw err;
  });
  if (lock) await rm(path.join(options.outDir, '_staging', runId), { recursive: true, force: true }).finally(() => lock.release());
}

/** A list given as a path (stdin is checked once copied, under the lock). */
function fileList(input: string | null | undefined): string | null {
  return input && input !== '-' ? input : null;
}

/** A list read from stdin with no accepted entry: its copy and checkpoint go, then EmptyListError. */
async function checkStdinList(options: CrawlOptions, inputs: RunInputs, journal: RunJournal): Promise<void> {
  try {
    await checkListsHaveEntries(options, { domains: options.domains === '-' ? inputs.domains : null, apps: options.apps === '-' ? inputs.apps : null });
  } catch (err) {
    if (err instanceof EmptyListError) await journal.remove();
    throw err;
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
    ...(o.aiSignals ? { aiSignals: true } : {}),
    sellers: o.sellers !== false,
    ...sellersIdentity(o),
    ...(o.shard ? { shard: `${o.shard.index}/${o.shard.count}`, stage } : {}),
  };
}
