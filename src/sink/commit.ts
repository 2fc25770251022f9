/**
 * The commit of a staged run, in steps that can each be redone (docs/design.md, "The commit"):
 *
 * 1. plan    — every staged part gets its final name `DIR/<table>/snapshot_date=D/part-NNNNN.parquet`
 *              (the next free number), and the plan is saved in the run's checkpoint before
 *              anything is linked;
 * 2. publish — each planned part is hard-linked from the staging directory to its final name.
 *              A name that already exists is ours when it is the same file (same device and
 *              inode as the staged part: a link made by an attempt that was killed), and is
 *              skipped; a name another run took meanwhile gets the next free number, and the
 *              plan is saved again before that link is made;
 * 3. the run manifest is written (atomic rename): from then on the run is complete;
 * 4. the staging directory goes.
 * A kill between any two steps, or inside one, leaves a checkpoint from which the same command
 * finishes the commit with exactly one copy of every part. The staged files stay until the
 * manifest is written, so every planned part can always be linked again.
 */
import { link, stat } from 'node:fs/promises';
import path from 'node:path';
import type { TableName } from '../../schemas/tables.js';
import { fsyncDir } from '../util/atomic-file.js';
import { highestPartNumber, partFileName, partitionDir } from './part-files.js';
import type { StagedPart } from './writer-options.js';

export interface PlannedPart {
  table: TableName;
  /** File name in the staging directory. */
  staged: string;
  /** Final path relative to the snapshot root, `/`-separated (as the manifest lists it). */
  final: string;
  rows: number;
  bytes: number;
}

/** Final names for every staged part: per partition, numbers after the highest one present. */
export async function planCommit(outDir: string, snapshotDate: string, staged: readonly StagedPart[]): Promise<PlannedPart[]> {
  const next = new Map<string, number>();
  const plan: PlannedPart[] = [];
  for (const p of staged) {
    const dir = partitionDir(outDir, p.table, snapshotDate);
    const n = next.get(dir) ?? (await highestPartNumber(dir)) + 1;
    next.set(dir, n + 1);
    plan.push({ table: p.table, staged: p.file, final: relative(outDir, path.join(dir, partFileName(n))), rows: p.rows, bytes: p.bytes });
  }
  return plan;
}

/**
 * Links every planned part into place (step 2). `savePlan` is called, and awaited, whenever a
 * part has to move to another name, before the new name is linked.
 */
export async function publishPlan(outDir: string, stagingDir: string, plan: PlannedPart[], savePlan: (plan: PlannedPart[]) => Promise<void>, hooks: CommitHooks = {}): Promise<void> {
  const dirs = new Set<string>();
  for (const entry of plan) {
    const src = path.join(stagingDir, entry.staged);
    const srcStat = await stat(src).catch((err: NodeJS.ErrnoException) => {
      throw new Error(`cannot finish the commit: the staged part ${src} is gone (${err.code ?? err.message})`, { cause: err });
    });
    for (;;) {
      const dest = path.join(outDir, entry.final);
      dirs.add(path.dirname(dest));
      try {
        await link(src, dest);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const there = await stat(dest).catch(() => null);
        if (there && there.ino === srcStat.ino && there.dev === srcStat.dev) break; // linked by an earlier attempt
        const dir = path.dirname(dest);
        entry.final = relative(outDir, path.join(dir, partFileName((await highestPartNumber(dir)) + 1)));
        await savePlan(plan);
      }
    }
    await hooks.afterLink?.(entry);
  }
  for (const d of dirs) await fsyncDir(d);
}

/** Test hooks: pause or die between the steps of a commit (kill-during-commit drills). */
export interface CommitHooks {
  afterLink?: (entry: PlannedPart) => Promise<void> | void;
}

/** Per table: rows and final parts, the shape the manifest records. */
export function planTables(plan: readonly PlannedPart[], tables: readonly TableName[]): Record<string, { rows: number; parts: string[] }> {
  const out: Record<string, { rows: number; parts: string[] }> = {};
  for (const t of tables) out[t] = { rows: 0, parts: [] };
  for (const p of plan) {
    const t = (out[p.table] ??= { rows: 0, parts: [] });
    t.rows += p.rows;
    t.parts.push(p.final);
  }
  return out;
}

function relative(outDir: string, p: string): string {
  return path.relative(outDir, p).split(path.sep).join('/');
}
