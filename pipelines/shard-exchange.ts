import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { replaceFileAtomically } from '../src/util/atomic-file.js';
import type { Shard } from '../src/util/shard.js';

/**
 * What the shards of a sharded snapshot tell each other between stages, through the shared
 * output directory (`DIR/_shards/<date>/<N>/<stage>-<K>.json`) — no coordinator of our own:
 * the engine (e.g. Kubernetes Jobs, one per stage) runs the stages in order, and a stage refuses
 * to start until every shard of the previous stage has written its file.
 *
 * `targets`, `referrals` and `sellers` (round 0: the ad systems' sellers.json) are run by every
 * shard. `intermediaries` (rounds 1…N of the sellers phase) is run once, by shard 0: each round
 * needs every file of the round before, which would cost one stage per round if it were split,
 * and intermediary files are few (bounded per night) next to the ad systems'.
 */
export type Stage = 'targets' | 'referrals' | 'sellers' | 'intermediaries';
export const STAGES: readonly Stage[] = ['targets', 'referrals', 'sellers', 'intermediaries'];

/** The stage whose reports a stage reads before it starts (null: the first stage reads none). */
export function previousStage(stage: Stage): Stage | null {
  const i = STAGES.indexOf(stage);
  return i > 0 ? STAGES[i - 1]! : null;
}

export interface ShardReport {
  partners: string[];
  adSystems: string[];
  claimed: string[];
  robotsClaimed: string[];
  /** Store hosts whose listing pages were read (their robots.txt is recorded by the owner, stage 2); absent in older reports. */
  storeHosts?: string[];
  /** Domains named by INTERMEDIARY/BOTH entries of the sellers.json read (stage `sellers`: round 0). */
  intermediaries?: string[];
  /** Unused: pending apps travel in their own files (pending-apps.ts). */
  pendingApps?: unknown[];
}

export function exchangeDir(outDir: string, snapshotDate: string, shard: Shard): string {
  return path.join(outDir, '_shards', snapshotDate, String(shard.count));
}

export async function writeShardReport(outDir: string, snapshotDate: string, shard: Shard, stage: Stage, report: ShardReport): Promise<void> {
  const dir = exchangeDir(outDir, snapshotDate, shard);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${stage}-${shard.index}.json`);
  await replaceFileAtomically(file, JSON.stringify(report));
}

/** A stage started before every shard finished the one before: retry later (exit 75). */
export class ShardStageNotReadyError extends Error {
  readonly code = 'SHARD_STAGE_NOT_READY';
}

/** Every shard's report of `stage`; throws ShardStageNotReadyError naming the shards that have not finished it. */
export async function readShardReports(outDir: string, snapshotDate: string, shard: Shard, stage: Stage): Promise<ShardReport[]> {
  const dir = exchangeDir(outDir, snapshotDate, shard);
  const reports: ShardReport[] = [];
  const missing: number[] = [];
  for (let k = 0; k < shard.count; k++) {
    try {
      reports.push(JSON.parse(await readFile(path.join(dir, `${stage}-${k}.json`), 'utf8')) as ShardReport);
    } catch {
      missing.push(k);
    }
  }
  if (missing.length) {
    throw new ShardStageNotReadyError(`stage '${stage}' is not finished by shard(s) ${missing.join(', ')} of ${shard.count}: run every shard's '${stage}' stage first`);
  }
  return reports;
}
