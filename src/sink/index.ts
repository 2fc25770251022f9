/**
 * The Parquet sink (contract §2–3): snapshot parts per table, committed atomically, and the
 * run manifest. See snapshot-writer.ts for the write path and part-files.ts for naming.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { replaceFileAtomically } from '../util/atomic-file.js';

export { openSnapshotWriter } from './snapshot-writer.js';
export type { CommitResult, CommittedPart, SideParts, SnapshotWriter, WriterStats } from './snapshot-writer.js';
export { planCommit, planTables, publishPlan, type CommitHooks, type PlannedPart } from './commit.js';
export type { SnapshotWriterOptions, StagedPart } from './writer-options.js';
export { partitionDir, sweepTemporaryParts } from './part-files.js';

/** Writes DIR/_runs/<run id>.json atomically (temp file, fsync, rename); returns its path. */
export async function writeRunManifest(outDir: string, runId: string, manifest: object): Promise<string> {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(runId)) throw new TypeError(`runId must be 1–80 letters, digits, '-' or '_', got ${JSON.stringify(runId)}`);
  const dir = path.join(outDir, '_runs');
  await mkdir(dir, { recursive: true });
  const final = path.join(dir, `${runId}.json`);
  const json = JSON.stringify(manifest, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2) + '\n';
  await replaceFileAtomically(final, json, { syncDir: true });
  return final;
}
