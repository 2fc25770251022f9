/**
 * The crawl is over: every part is sealed and that state saved (phase 'compact') with the
 * manifest the commit will write; then compaction, the commit's plan, the publishing
 * (run-commit.ts). A stage that reports to the next saves its report with them (crawl-plan.ts).
 */
import type { SnapshotWriter } from '../src/sink/index.js';
import type { RunLock } from '../src/store/run-lock.js';
import type { CrawlOptions, CrawlResult } from './crawl-options.js';
import type { PendingApps } from './pending-apps.js';
import type { RunJournal } from './run-journal.js';
import type { RunManifest, RunState } from './run-state.js';
import type { RunStats } from './run-stats.js';
import { compactAndCommit, processResources, sealedOnly } from './run-commit.js';

/** What the commit reads and writes of the run. */
export interface CommitSlice {
  options: CrawlOptions;
  state: RunState;
  stats: RunStats;
  journal: RunJournal;
  lock: RunLock;
  writer: Pick<SnapshotWriter, 'seal'>;
  pending: PendingApps | null;
  /** What the run manifest will say (run-manifest.ts). */
  manifest: RunManifest;
  /** What this shard tells the next stage, or null. */
  shardReport: RunState['shardReport'];
  /** Closes the fetcher and the earlier snapshot's index. */
  closeInputs: () => Promise<void>;
  resumed: boolean;
}

export async function commitCrawl(s: CommitSlice): Promise<CrawlResult> {
  const { state, stats } = s;
  stats.enter('compact');
  state.staged = await s.writer.seal();
  if (s.pending) await s.pending.close();
  state.stats = stats.toJSON();
  state.shardReport = s.shardReport;
  state.phase = 'compact';
  state.commit = null;
  // A commit in another process adds this one's CPU and peak memory to the manifest's (run-commit.ts).
  const manifest = s.options.untilSealed ? { ...s.manifest, crawl_process: processResources() } : s.manifest;
  const sealed = Object.assign(state, { manifest });
  await s.lock.assertHeld();
  await s.journal.save(sealed);
  // Nothing is fetched or looked up any more: the connections, the DNS cache and the previous
  // snapshot's index go before the compaction, whose DuckDB sets the process's peak memory.
  await s.closeInputs();
  if (s.options.untilSealed) return sealedOnly(sealed, stats, s.resumed);
  return await compactAndCommit(s.options, s.journal, s.lock, sealed, stats, s.resumed);
}
