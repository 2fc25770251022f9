/**
 * The night's lookups of `adsnap verify` (request-sql.ts lookupStatements: the night's files,
 * records by folded key, partners, sellers.json entries, apps), attached as the database `w`.
 * Built from the night's tables, they are most of a run's fixed cost (5.3 s of 20 s for 1M
 * requests against a 100k-site night, docs/performance.md#verify), the same for every run against
 * that night. So a run that reads one root keeps them with the night, in
 * ROOT/_derived/_verify/<night>-<key>.duckdb, and the next run against the night attaches that
 * file read-only instead of building them again. The key is a digest of the lookups' SQL, the
 * vocabulary key (sql/views.sql, whose macros the lookups read) and the night's complete runs: a
 * night crawled again, or a changed definition, builds them again, and the stale file is removed.
 * A root whose folder cannot be written to (a read-only mount) is read as before: the lookups are
 * built in the run's private folder, every run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { derivedDir, derivedKey } from '../sql/derived.js';
import type { SnapshotDb } from '../sql/snapshot-db.js';
import { completedRuns } from '../store/run-manifests.js';
import { withMemoryRetry } from '../util/duckdb-size.js';
import { rangeBoundsSql, rangesBetween, type KeyRange } from '../util/key-ranges.js';
import { sqlString } from '../util/sql-literal.js';
import { lookupStatements } from './request-sql.js';

/** Where the lookups came from: kept with the night (built now, or by an earlier run), or built in the run's private folder. */
export type LookupSource = 'kept' | 'reused' | 'private';

/** The folder of a root's kept lookups. */
const keptLookupsDir = (root: string): string => path.join(derivedDir(root), '_verify');

/** The kept lookups' file of `night` in `root`: its name carries the key, so a stale file is never attached. */
export async function keptLookupsPath(root: string, night: string): Promise<string> {
  const runs = (await completedRuns(root)).filter((r) => r.snapshotDate === night).map((r) => r.runId).sort();
  const key = createHash('sha256').update(`adsnap verify lookups v1\n${derivedKey()}\n${runs.join('\n')}\n`).update(lookupStatements(night).join('\n')).digest('hex').slice(0, 24);
  return path.join(keptLookupsDir(root), `${night}-${key}.duckdb`);
}

/**
 * How the lookups are built: under DuckDB's memory_limit `limit`, and again under twice the limit
 * while DuckDB runs out of memory anyway (up to 4 GB from 512 MB; withMemoryRetry), each try told
 * to `onRetry`; the limit is `limit` again for what follows. The records are grouped one range of
 * subjects at a time (recordRanges), so a night's size alone does not need the larger limits.
 */
export interface LookupBuild {
  limit: string;
  onRetry: (next: string, err: Error) => void;
  /** The night's records per range of subjects in the record lookup's grouping. @default LOOKUP_RECORDS_PER_RANGE */
  recordsPerRange?: number;
}

/**
 * Attaches the lookups of `night` as `w`, read-only: the kept file of the one root read, built
 * there first when it is missing; else (several roots, whose union a root's file would not
 * hold, or a root that cannot be written to) built in `work`, the run's private folder.
 */
export async function attachLookups(db: SnapshotDb, roots: readonly string[], night: string, work: string, how: LookupBuild): Promise<LookupSource> {
  const distinct = [...new Set(roots.map((r) => path.resolve(r)))];
  if (distinct.length === 1) {
    const kept = await keptLookupsPath(distinct[0]!, night);
    if (existsSync(kept)) {
      // A file DuckDB cannot open (cut short on a full disk, written by a newer DuckDB) is built again.
      const attached = await db.connection.run(`ATTACH ${sqlString(kept)} AS w (READ_ONLY)`).then(() => true, () => false);
      if (attached) return 'reused';
      await rm(kept, { force: true });
    }
    if (await keep(db, kept, night, how)) {
      await db.connection.run(`ATTACH ${sqlString(kept)} AS w (READ_ONLY)`);
      return 'kept';
    }
  }
  const file = path.join(work, 'lookups.duckdb');
  await build(db, file, night, how);
  await db.connection.run(`ATTACH ${sqlString(file)} AS w (READ_ONLY)`);
  return 'private';
}

/**
 * The night's records per range of subjects when the record lookup is grouped: the 100k-site
 * bench night's 7.1 M in one range (3.6 s under 512 MB). A crawled 1M-site night's 71 M grouped at
 * once ran out of 512 MB and 1 GB and needed 2 GB (2.5 GB RSS); in ranges of 8 M, 119 s under
 * 512 MB, 784 MB RSS (docs/performance.md#verify).
 */
const LOOKUP_RECORDS_PER_RANGE = 8_000_000;

/** The ranges of subjects the night's records are grouped in, each about LOOKUP_RECORDS_PER_RANGE records. */
async function recordRanges(db: SnapshotDb, night: string, recordsPerRange = LOOKUP_RECORDS_PER_RANGE): Promise<KeyRange[]> {
  const records = `ads_records WHERE snapshot_date = CAST(${sqlString(night)} AS DATE)`;
  const [count] = await db.rows(`SELECT count(*) AS n FROM ${records}`);
  const n = Math.ceil(Number(count?.n ?? 0) / recordsPerRange);
  if (n <= 1) return [[null, null]];
  const [row] = await db.rows(rangeBoundsSql(n, 'subject', records));
  return rangesBetween((row?.bounds ?? []) as unknown[]);
}

/**
 * Builds the lookups in `file` (created, or replaced) and detaches it, under `how`'s memory limit
 * and the larger ones it is given while DuckDB runs out of memory; a failed try leaves no file.
 */
async function build(db: SnapshotDb, file: string, night: string, how: LookupBuild): Promise<void> {
  const con = db.connection;
  const remove = async () => {
    await con.run('DETACH DATABASE IF EXISTS w').catch(() => {});
    for (const f of [file, `${file}.wal`]) await rm(f, { force: true }).catch(() => {});
  };
  try {
    await withMemoryRetry(how.limit, async (limit) => {
      await remove();
      await con.run(`SET memory_limit = ${sqlString(limit)}`);
      await con.run(`ATTACH ${sqlString(file)} AS w`);
      for (const s of lookupStatements(night, await recordRanges(db, night, how.recordsPerRange))) await con.run(s);
      // Whole in the one file (no write-ahead log beside it) before it is renamed or attached read-only.
      await con.run('CHECKPOINT w');
      await con.run('DETACH w');
    }, how.onRetry);
  } catch (err) {
    await remove();
    throw err;
  } finally {
    await con.run(`SET memory_limit = ${sqlString(how.limit)}`);
  }
}

/**
 * Builds the lookups under a temporary name beside `kept`, renames it into place (two runs at once
 * each build, the last rename wins, and both files are whole), then removes the night's other
 * files (stale keys). Returns false, having written nothing, when the folder cannot be made or
 * the file not created there (a read-only mount, permissions, a file in the folder's place).
 */
async function keep(db: SnapshotDb, kept: string, night: string, how: LookupBuild): Promise<boolean> {
  const dir = path.dirname(kept);
  const tmp = path.join(dir, `.${path.basename(kept)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await db.connection.run(`ATTACH ${sqlString(tmp)} AS w`);
    await db.connection.run('DETACH w');
  } catch {
    await db.connection.run('DETACH DATABASE IF EXISTS w').catch(() => {});
    await rm(tmp, { force: true }).catch(() => {});
    return false;
  }
  await build(db, tmp, night, how);
  try {
    await rename(tmp, kept);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    const stale = f.startsWith(`${night}-`) && f.endsWith('.duckdb') && f !== path.basename(kept);
    // A killed run's temporary file: an hour old, no run is still writing it.
    const abandoned = f.startsWith(`.${night}-`) && f.endsWith('.tmp') && Date.now() - ((await stat(path.join(dir, f)).catch(() => null))?.mtimeMs ?? Date.now()) > 3_600_000;
    if (stale || abandoned) await rm(path.join(dir, f), { force: true }).catch(() => {});
  }
  return true;
}
