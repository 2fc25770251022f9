/**
 * Which snapshots in a directory are complete (contract §2): a run is complete once its manifest
 * `DIR/_runs/<run id>.json` exists — the crawl writes it only after every part is committed — and
 * the parts it lists are still there. Parts of a run that died without a manifest are ignored.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

export interface CompletedRun {
  runId: string;
  snapshotDate: string;
  manifestPath: string;
  finishedAt: string | null;
  /** Per table, the committed parts as absolute paths. */
  parts: Record<string, string[]>;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Every complete run under `outDir`, oldest snapshot date first. A manifest counts when it
 * names its snapshot date, lists at least one committed `files` part, and every part it lists
 * exists inside `outDir`. Unreadable or malformed manifests are skipped, not fatal.
 */
export async function completedRuns(outDir: string): Promise<CompletedRun[]> {
  const dir = path.join(outDir, '_runs');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  const runs: CompletedRun[] = [];
  for (const name of names.sort()) {
    const run = await readRun(outDir, path.join(dir, name));
    if (run) runs.push(run);
  }
  return runs.sort((a, b) => (a.snapshotDate < b.snapshotDate ? -1 : a.snapshotDate > b.snapshotDate ? 1 : 0));
}

/** The latest snapshot date before `beforeDate` (YYYY-MM-DD) with a complete run, or null. */
export async function findPreviousSnapshot(outDir: string, beforeDate: string): Promise<string | null> {
  if (!DATE.test(beforeDate)) throw new TypeError(`beforeDate must be YYYY-MM-DD, got ${JSON.stringify(beforeDate)}`);
  let best: string | null = null;
  for (const r of await completedRuns(outDir)) if (r.snapshotDate < beforeDate && (best === null || r.snapshotDate > best)) best = r.snapshotDate;
  return best;
}

async function readRun(outDir: string, manifestPath: string): Promise<CompletedRun | null> {
  let m: unknown;
  try {
    m = JSON.parse(await readFile(manifestPath, 'utf8'));
  } catch {
    return null;
  }
  if (!isObject(m) || typeof m.snapshot_date !== 'string' || !DATE.test(m.snapshot_date) || !isObject(m.tables)) return null;
  const root = path.resolve(outDir);
  const parts: Record<string, string[]> = {};
  for (const [table, entry] of Object.entries(m.tables)) {
    if (!isObject(entry) || !Array.isArray(entry.parts)) return null;
    const list: string[] = [];
    for (const rel of entry.parts) {
      if (typeof rel !== 'string') return null;
      const abs = path.resolve(root, rel);
      // A manifest only ever names parts inside its own snapshot root.
      if (!abs.startsWith(root + path.sep) || !abs.endsWith('.parquet')) return null;
      list.push(abs);
    }
    parts[table] = list;
  }
  if (!parts.files || parts.files.length === 0) return null;
  for (const list of Object.values(parts)) {
    for (const p of list) if (!(await isFile(p))) return null;
  }
  return {
    runId: typeof m.run_id === 'string' ? m.run_id : path.basename(manifestPath, '.json'),
    snapshotDate: m.snapshot_date,
    manifestPath,
    finishedAt: typeof m.finished_at === 'string' ? m.finished_at : null,
    parts,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}
