import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { StagedPart } from '../src/sink/index.js';

/**
 * Crash-safe resume (issue 7). A run's sealed parts wait in `DIR/_staging/<run id>/` — invisible
 * to `DIR/<table>/*\/*.parquet` — and `state.json` there says, as of the last checkpoint, how far
 * each phase got and what the crawl had learnt (partners, ad systems, claimed subjects). A run
 * started again with the same arguments gets the same run id, finds that state, adopts the
 * staged parts and goes on from the checkpoint; the rows of work done after it were never
 * staged, so nothing is duplicated and nothing is missing. The commit publishes every staged
 * part and removes the directory.
 */
export type Phase = 'domains' | 'apps' | 'partners' | 'sellers' | 'commit';

export interface RunState {
  version: 1;
  runId: string;
  attempt: number;
  phase: Phase;
  /** Items of each phase's (deterministic) input that are complete. */
  done: Record<Exclude<Phase, 'commit'>, number>;
  /** Inputs of the referral phases, fixed when the phase starts. */
  partnerList: string[] | null;
  sellersList: string[] | null;
  referrals: unknown;
  apps: unknown;
  stats: unknown;
  staged: StagedPart[];
  /** Sharded runs: length of this shard's pending-apps file at the checkpoint. */
  pendingAppsBytes: number;
}

/** The run id that a run with these arguments always gets: the same arguments resume the same run. */
export function deriveRunId(snapshotDate: string, identity: Record<string, unknown>): string {
  const h = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 12);
  return `${snapshotDate}-${h}`;
}

export class RunJournal {
  private constructor(
    readonly dir: string,
    readonly previous: RunState | null,
  ) {}

  static async open(outDir: string, runId: string): Promise<RunJournal> {
    const dir = path.join(outDir, '_staging', runId);
    await mkdir(dir, { recursive: true });
    let previous: RunState | null = null;
    try {
      previous = JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as RunState;
      if (previous.version !== 1 || previous.runId !== runId) previous = null;
    } catch {
      previous = null; // no checkpoint yet: a fresh start
    }
    const journal = new RunJournal(dir, previous);
    await journal.removeStrays(previous?.staged ?? []);
    return journal;
  }

  get attempt(): number {
    return (this.previous?.attempt ?? 0) + 1;
  }

  /** Writes the checkpoint atomically (temp file, fsync, rename). */
  async save(state: RunState): Promise<void> {
    const tmp = path.join(this.dir, 'state.json.tmp');
    const h = await open(tmp, 'w');
    try {
      await h.writeFile(JSON.stringify(state));
      await h.sync();
    } finally {
      await h.close();
    }
    await rename(tmp, path.join(this.dir, 'state.json'));
  }

  /** After the commit: nothing of the run is left in staging. */
  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Parts staged after the last checkpoint by a run that then died are not part of the run. */
  private async removeStrays(keep: readonly StagedPart[]): Promise<void> {
    const kept = new Set(keep.map((p) => p.file));
    for (const name of await readdir(this.dir)) {
      if (name === 'state.json' || kept.has(name)) continue;
      await rm(path.join(this.dir, name), { force: true });
    }
  }
}
