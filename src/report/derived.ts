/**
 * Writes the vocabulary's derived tables of a night (src/sql/derived.ts: what they are, where they
 * live, when a set is current): at the crawl's commit, by `adsnap reparse` for its run, and by
 * `adsnap derive` for every night that lacks a current set. One night at a time, under the night's
 * derive lock (ROOT/_staging/derive-<night>.lock), reading only that night's partitions, so the
 * cost does not grow with the nights the root holds. Atomic per night: the parts are written under
 * a new set name, then the marker names them (one rename), then the night's other parts go; a kill
 * before the marker leaves the night as it was, and the next derivation finishes it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { openSnapshotDb } from '../sql/snapshot-db.js';
import { sqlString } from '../util/sql-literal.js';
import { DERIVED_TABLES, derivedDir, derivedKey, isCurrent, markerPath, nightSql, partPath, readMarker, type DerivedMarker } from '../sql/derived.js';
import { createOwnerTable } from './owners.js';
import { completedRuns } from '../store/run-manifests.js';
import { RunLock, type RunLockOptions } from '../store/run-lock.js';
import { replaceFileAtomically, temporaryName } from '../util/atomic-file.js';
import { withMemoryRetry } from '../util/duckdb-size.js';

export interface DeriveOutcome {
  night: string;
  /** written: a new current set; current: one was there already (nothing done). */
  outcome: 'written' | 'current';
  seconds: number;
}

export interface DeriveOptions {
  /**
   * DuckDB's memory limit for the derivation (default 512MB). Out of memory under it, the night
   * is derived again under twice the limit, twice at most (onMemoryRetry is told): a night of 1M
   * sites needs 2 GB today (docs/performance.md).
   */
  memoryLimit?: string;
  /** Told of each larger limit tried (`adsnap derive` says it on stderr; a commit's retries are silent, as its compaction's). */
  onMemoryRetry?: (next: string, err: Error) => void;
  lock?: RunLockOptions;
}

/** The complete runs of `night` in `root`, by id. */
async function runsOf(root: string, night: string): Promise<string[]> {
  return (await completedRuns(root)).filter((r) => r.snapshotDate === night).map((r) => r.runId);
}

/**
 * Derives `night` in `root` unless its set is current. Throws RunLockedError (code RUN_LOCKED: try
 * later) when another derivation of the night is alive, and an Error when the root has no complete
 * run of the night.
 */
export async function deriveNight(root: string, night: string, o: DeriveOptions = {}): Promise<DeriveOutcome> {
  const lock = await RunLock.acquire(path.join(root, '_staging'), `derive-${night}`, o.lock);
  try {
    const runs = await runsOf(root, night);
    if (runs.length === 0) throw new Error(`no complete run of ${night} in ${root}`);
    if (isCurrent(root, await readMarker(root, night), night, runs)) return { night, outcome: 'current', seconds: 0 };
    const t0 = performance.now();
    const tables = await withMemoryRetry(o.memoryLimit ?? '512MB', (memoryLimit) => writeSet(root, night, { ...o, memoryLimit }), o.onMemoryRetry ?? (() => {}), 3);
    await lock.assertHeld();
    const marker: DerivedMarker = { key: derivedKey(), snapshot_date: night, runs: [...runs].sort(), tables, seconds: Math.round(performance.now() - t0) / 1000, written_at: new Date().toISOString() };
    await mkdir(path.dirname(markerPath(root, night)), { recursive: true });
    await replaceFileAtomically(markerPath(root, night), JSON.stringify(marker, null, 2) + '\n', { syncDir: true });
    await removeOtherParts(root, night, new Set(Object.values(tables).map((p) => path.join(root, p))));
    return { night, outcome: 'written', seconds: marker.seconds };
  } finally {
    await lock.release();
  }
}

/** Computes every derived table of `night` from the definitions (no derived set read) and writes its parts; returns them, relative to the root. */
async function writeSet(root: string, night: string, o: DeriveOptions): Promise<Record<string, string>> {
  const set = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  // Only the night's folders are read: the derivation of a night costs the same whatever the root
  // holds besides (no derived table reads another night: test/derived.test.ts checks each against its view).
  const db = await openSnapshotDb(root, { derived: false, night });
  const tables: Record<string, string> = {};
  try {
    await db.rows(`SET memory_limit = $1`, [o.memoryLimit ?? '512MB']);
    await db.rows(`SET preserve_insertion_order = false`);
    // The night and the key are bound once, into variables the SQL reads: no value is spliced into the text.
    await db.rows(`SET VARIABLE adsnap_derive_night = CAST($1 AS DATE)`, [night]);
    await db.rows(`SET VARIABLE adsnap_vocabulary_key = $1`, [derivedKey()]);
    await createOwnerTable(db.connection, (c) => `${c} = getvariable('adsnap_derive_night')`);
    // Each table's SQL with the night as a constant (nightSql): only that night's partitions are read.
    for (const t of DERIVED_TABLES) {
      const file = partPath(root, t.name, night, set);
      await mkdir(path.dirname(file), { recursive: true });
      // A hidden temporary name (no reader's glob matches it), renamed once whole.
      const tmp = temporaryName(file);
      await db.rows(`COPY (SELECT *, getvariable('adsnap_vocabulary_key') AS vocabulary_key FROM (${nightSql(t, night)})) TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd)`);
      await rename(tmp, file);
      tables[t.name] = path.relative(root, file);
    }
  } finally {
    db.close();
  }
  return tables;
}

/** Removes the parts of `night` that `keep` does not name: older sets, and those of a derivation killed before its marker. */
async function removeOtherParts(root: string, night: string, keep: Set<string>): Promise<void> {
  for (const t of DERIVED_TABLES) {
    const dir = path.join(derivedDir(root), t.name, `snapshot_date=${night}`);
    for (const f of await readdir(dir).catch(() => [] as string[])) {
      const file = path.join(dir, f);
      if (!keep.has(file)) await rm(file, { force: true });
    }
  }
}

/** Derives every night of `root` (or only `night`) that lacks a current set, oldest first. */
export async function deriveRoot(root: string, o: DeriveOptions & { night?: string } = {}): Promise<DeriveOutcome[]> {
  const nights = [...new Set((await completedRuns(root)).map((r) => r.snapshotDate))].filter((d) => !o.night || d === o.night);
  const out: DeriveOutcome[] = [];
  for (const night of nights) out.push(await deriveNight(root, night, o));
  return out;
}
