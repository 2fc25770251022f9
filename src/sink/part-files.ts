/**
 * Where parts live and how they become visible (contract §2):
 *   DIR/<table>/snapshot_date=YYYY-MM-DD/part-<NNNNN>.parquet
 * A part is written under a temporary name that no `*.parquet` glob matches
 * (`.part-<run id>-<attempt token>-<table>-<seq>.parquet.tmp`, beside its final place so the
 * rename stays on one file system; the token is unique to the attempt, so two processes never
 * share a temporary name), fsynced, then published with link(2): atomic, and it fails instead of
 * overwriting when another run took that number, so the next free number is tried. The run id
 * and sequence are also written into each part's key-value metadata (`adsnap.run_id`,
 * `adsnap.part_seq`).
 */
import { link, mkdir, readdir, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { fsyncDir } from '../util/atomic-file.js';

export function partitionDir(outDir: string, table: string, snapshotDate: string): string {
  return path.join(outDir, table, `snapshot_date=${snapshotDate}`);
}

export function tempPartPath(dir: string, runId: string, token: string, table: string, seq: number): string {
  return path.join(dir, `.part-${runId}-${token}-${table}-${String(seq).padStart(5, '0')}.parquet.tmp`);
}

export function partFileName(n: number): string {
  return `part-${String(n).padStart(5, '0')}.parquet`;
}

const PART = /^part-(\d+)\.parquet$/;
const nextNumber = new Map<string, number>();

export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/** Publishes a finished temporary part under the next free `part-NNNNN.parquet`; returns its path. */
export async function publishPart(dir: string, tmpPath: string): Promise<string> {
  let n = nextNumber.get(dir) ?? (await highestPartNumber(dir)) + 1;
  for (;;) {
    const final = path.join(dir, partFileName(n));
    try {
      await link(tmpPath, final);
      nextNumber.set(dir, n + 1);
      await unlink(tmpPath);
      await fsyncDir(dir);
      return final;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      n++;
    }
  }
}

/** The highest NNNNN of the `part-NNNNN.parquet` files in `dir` (0 when none). */
export async function highestPartNumber(dir: string): Promise<number> {
  let max = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = PART.exec(name);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max;
}

/** Removes a published part (abort of the run that wrote it). */
export async function unpublishPart(finalPath: string): Promise<void> {
  await rm(finalPath, { force: true });
  nextNumber.delete(path.dirname(finalPath));
}

/**
 * Deletes temporary parts left by runs that were killed (SIGKILL) in any table partition of
 * `outDir`; with `runId`, only that run's, and with `token` too, only that attempt's. Returns the
 * paths removed. Only the holder of the run's lock sweeps a whole run.
 */
export async function sweepTemporaryParts(outDir: string, runId?: string, token?: string): Promise<string[]> {
  const removed: string[] = [];
  const prefix = runId === undefined ? '.part-' : token === undefined ? `.part-${runId}-` : `.part-${runId}-${token}-`;
  for (const table of await readdir(outDir).catch(() => [] as string[])) {
    if (table.startsWith('_') || table.startsWith('.')) continue;
    const tableDir = path.join(outDir, table);
    for (const part of await readdir(tableDir).catch(() => [] as string[])) {
      if (!part.startsWith('snapshot_date=')) continue;
      const dir = path.join(tableDir, part);
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (name.startsWith(prefix) && name.endsWith('.parquet.tmp')) {
          await rm(path.join(dir, name), { force: true });
          removed.push(path.join(dir, name));
        }
      }
    }
  }
  return removed;
}
