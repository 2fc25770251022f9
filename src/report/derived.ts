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
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSnapshotDb, type SnapshotDb } from '../sql/snapshot-db.js';
import { sqlString, sqlStringList } from '../util/sql-literal.js';
import {
  DERIVED_TABLES, OWNER_TABLE, RECORDS_PER_RANGE, SERIES_SQL, SERIES_TABLES, derivedDir, derivedKey, earlierDigest, isCurrent, isSeriesCurrent, markerPath, nightSql, partPath, readMarker, setPart,
  nightRecordsSql, subjectBoundsSql, rangedSumSql, readSeriesMarker, seriesMarkerPath, type DerivedMarker, type RangedTable, type SeriesMarker,
} from '../sql/derived.js';
import { createOwnerTable } from './owners.js';
import { rangesBetween, type KeyRange } from '../util/key-ranges.js';
import { completedRuns } from '../store/run-manifests.js';
import { RunLock, type RunLockOptions } from '../store/run-lock.js';
import { replaceFileAtomically, temporaryName } from '../util/atomic-file.js';
import { withMemoryRetry } from '../util/duckdb-size.js';
import { stepTiming } from '../util/step-timing.js';

/** With ADSNAP_DERIVE_TIMING set: each table's (and each range's) time and the RSS after it, on stderr. */
const timing = stepTiming('ADSNAP_DERIVE_TIMING');

export interface DeriveOutcome {
  night: string;
  /** written: a new current set (the night's, its series set, or both); current: both were there already (nothing done). */
  outcome: 'written' | 'current';
  seconds: number;
}

export interface DeriveOptions {
  /**
   * DuckDB's memory limit for the derivation to start with (default 512MB). A table (or series
   * step) that runs out of memory under it is written again under twice the limit, which then holds
   * for the rest of the derivation, `memoryDoublings` times at most (default 3; onMemoryRetry is
   * told): a night of 1M sites needs 2 GB today (docs/performance.md).
   */
  memoryLimit?: string;
  memoryDoublings?: number;
  /** The series sets are written up to this night (`adsnap derive --night`); by default, up to the latest. */
  seriesThrough?: string;
  /**
   * Whether the series sets of the nights before this one are written too, from the first night
   * (`adsnap derive`). Without it (a commit, reparse) the sets from this night on are written only
   * when the night before has a current one, or this is the first night: a commit never pays for a
   * chain back to the first night (a root written before series sets: `adsnap derive` writes them).
   */
  seriesChain?: boolean;
  /** The night's records per range of subjects of a ranged table (default RECORDS_PER_RANGE; tests make it small). */
  recordsPerRange?: number;
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
  const db = new DerivationDb(root, o);
  try {
    return await deriveNightIn(db, night, o);
  } finally {
    db.close();
  }
}

/** deriveNight in `db` (of its root): one database for the night's set and its series sets, each step reading its own nights. */
async function deriveNightIn(db: DerivationDb, night: string, o: DeriveOptions): Promise<DeriveOutcome> {
  const root = db.root;
  const t0 = performance.now();
  const lock = await RunLock.acquire(path.join(root, '_staging'), `derive-${night}`, o.lock);
  let wrote = false;
  try {
    const runs = await runsOf(root, night);
    if (runs.length === 0) throw new Error(`no complete run of ${night} in ${root}`);
    if (!isCurrent(root, await readMarker(root, night), night, runs)) {
      const tables = await writeSet(db, night);
      await lock.assertHeld();
      const marker: DerivedMarker = { key: derivedKey(), snapshot_date: night, runs: [...runs].sort(), tables, seconds: Math.round(performance.now() - t0) / 1000, written_at: new Date().toISOString() };
      await publish(root, night, markerPath(root, night), marker, DERIVED_TABLES.map((t) => t.name));
      wrote = true;
    }
  } finally {
    await lock.release();
  }
  // The series sets of this night and, unless bounded, of every later one: a night crawled again changes the nights after it.
  wrote = (await deriveSeries(db, o.seriesChain ? undefined : night, o)) || wrote;
  return { night, outcome: wrote ? 'written' : 'current', seconds: wrote ? Math.round(performance.now() - t0) / 1000 : 0 };
}

/**
 * Writes the series set (SERIES_TABLES) of every night of `root` that lacks a current one (from
 * `from` on, when the night before it has a current set; else none), oldest first, under the
 * root's series lock: each night's from the one before it. Returns whether it wrote any.
 */
async function deriveSeries(db: DerivationDb, from: string | undefined, o: DeriveOptions): Promise<boolean> {
  const root = db.root;
  const lock = await RunLock.acquire(path.join(root, '_staging'), 'derive-series', o.lock);
  try {
    const byNight = new Map<string, string[]>();
    for (const r of await completedRuns(root)) byNight.set(r.snapshotDate, [...(byNight.get(r.snapshotDate) ?? []), r.runId]);
    const nights = [...byNight.keys()].sort().filter((d) => o.seriesThrough === undefined || d <= o.seriesThrough);
    let wrote = false;
    let before: { night: string; carry: string } | null = null;
    const start = from === undefined ? 0 : nights.indexOf(from);
    if (start < 0) return false;
    if (start > 0) {
      const previous = nights[start - 1]!;
      const m = await readSeriesMarker(root, previous);
      if (!isSeriesCurrent(root, m, previous, byNight.get(previous)!, earlierDigest(byNight, previous))) return false;
      before = { night: previous, carry: path.join(root, m.tables.file_observation_carry!) };
    }
    for (const night of nights.slice(start)) {
      const runs = byNight.get(night)!;
      const earlier = earlierDigest(byNight, night);
      let m: SeriesMarker | null = await readSeriesMarker(root, night);
      if (!isSeriesCurrent(root, m, night, runs, earlier)) {
        const t0 = performance.now();
        const b: { night: string; carry: string } | null = before;
        const tables: Record<string, string> = await db.retrying(() => writeSeriesSet(db, night, b));
        timing(`series ${night}`, t0);
        await lock.assertHeld();
        m = { key: derivedKey(), snapshot_date: night, runs: [...runs].sort(), earlier, tables, seconds: Math.round(performance.now() - t0) / 1000, written_at: new Date().toISOString() };
        await publish(root, night, seriesMarkerPath(root, night), m, SERIES_TABLES);
        wrote = true;
      }
      before = { night, carry: path.join(root, m!.tables.file_observation_carry!) };
    }
    return wrote;
  } finally {
    await lock.release();
  }
}

/**
 * Computes the series tables of `night` from the night before (`before`: its date and carry part;
 * null for the first night) and writes their parts; returns them, relative to the root. Two
 * steps, each with the table views over its own nights: the night and the night before, for the
 * changed files and the carry; then the night and the nights the changed files were last
 * observed, for their records.
 */
async function writeSeriesSet(derivation: DerivationDb, night: string, before: { night: string; carry: string } | null): Promise<Record<string, string>> {
  const root = derivation.root;
  const set = newSetName();
  const tables: Record<string, string> = {};
  const work = await mkdtemp(path.join(tmpdir(), 'adsnap-series-'));
  const pairs = path.join(work, 'pairs.parquet');
  const write = async (db: SnapshotDb, table: string, sql: string) => (tables[table] = await writePart(db, root, table, night, set, sql));
  try {
    const db = await derivation.use(before ? [before.night, night] : [night], night);
    try {
      await db.rows(`SET VARIABLE adsnap_previous_night = CAST($1 AS DATE)`, [before?.night ?? null]);
      await db.connection.run(`CREATE OR REPLACE TEMP TABLE adsnap_observed_files AS ${SERIES_SQL.observed}`);
      const carried = before ? `SELECT * FROM read_parquet(${sqlString(before.carry)})` : `SELECT * FROM adsnap_observed_files WHERE false`;
      await db.connection.run(`CREATE OR REPLACE TEMP VIEW adsnap_carry_before AS SELECT subject, file_kind, observed_date, status, sha256 FROM (${carried})`);
      await db.connection.run(`CREATE OR REPLACE TEMP TABLE adsnap_state_before AS ${SERIES_SQL.before}`);
      await write(db, 'file_observation_carry', SERIES_SQL.carry);
      await db.connection.run(`COPY (${SERIES_SQL.pairs}) TO ${sqlString(pairs)} (FORMAT parquet)`);
    } finally {
      // Best effort: a failure here must not hide the one that brought us here (the next step's CREATE OR REPLACE redoes them).
      for (const drop of ['TABLE IF EXISTS adsnap_state_before', 'VIEW IF EXISTS adsnap_carry_before', 'TABLE IF EXISTS adsnap_observed_files']) await db.connection.run(`DROP ${drop}`).catch(() => {});
    }
    const previous = (await db.rows(`SELECT DISTINCT strftime(previous_date, '%Y-%m-%d') AS d FROM read_parquet(${sqlString(pairs)})`)).map((r) => String(r.d));
    // The records of the changed files: the night and the nights they were last observed.
    await derivation.use([night, ...previous], night);
    // record_changes' definition reads file_change_pairs: for this night's write, the pairs just computed; then the shipped view again.
    const restore = await replaceView(db, 'file_change_pairs', `SELECT * FROM read_parquet(${sqlString(pairs)})`);
    try {
      await write(db, 'record_changes', SERIES_SQL.record_changes);
    } finally {
      await restore();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return tables;
}

/**
 * Computes every derived table of `night` from the definitions (no derived set read) and writes its
 * parts; returns them, relative to the root. Each table written is then read by the later ones
 * from its part (setPart; a view's name shadowed by a temporary view of its part: the same rows),
 * so no table's rows are computed twice in a set. At 100k sites, ad_system_sites,
 * ad_company_sites, ad_system_seller_checks and headline_figures each ran out of 128MB while they
 * computed file_scopes again under their own joins, and fit once they read its part.
 */
async function writeSet(derivation: DerivationDb, night: string): Promise<Record<string, string>> {
  const set = newSetName();
  // Only the night's folders are read: the derivation of a night costs the same whatever the root
  // holds besides (no derived table reads another night: test/derived.test.ts checks each against its view).
  const db = await derivation.use([night], night);
  const tables: Record<string, string> = {};
  const shadowed: string[] = [];
  try {
    const t0 = performance.now();
    await derivation.retrying(() => createOwnerTable(db.connection, (c) => `${c} = getvariable('adsnap_derive_night')`));
    timing('owners', t0);
    // Each table's SQL with the night as a constant (nightSql): only that night's partitions are read.
    // A table out of memory is written again under a larger limit; the tables before it stand.
    for (const t of DERIVED_TABLES) {
      const t0 = performance.now();
      tables[t.name] = t.ranged
        ? await writeRanged(derivation, db, t.name, t.ranged, night, set)
        : await derivation.retrying(() => writePart(db, derivation.root, t.name, night, set, nightSql(t, night)));
      timing(t.name, t0);
      await db.connection.run(`CREATE OR REPLACE TEMP VIEW ${setPart(t.name)} AS SELECT * EXCLUDE (vocabulary_key) FROM read_parquet(${sqlString(path.join(derivation.root, tables[t.name]!))})`);
      // A view (not a table macro of a night) is read from the part by the later tables: a temporary view shadows it until the set is written.
      if (t.view !== null && !t.view.endsWith('_at')) {
        shadowed.push(t.view);
        await db.connection.run(`CREATE OR REPLACE TEMP VIEW ${t.view} AS SELECT * FROM ${setPart(t.name)}`);
      }
    }
  } finally {
    // Best effort, as the series step's; the shipped views answer again once their shadows are gone.
    await db.connection.run(`DROP TABLE IF EXISTS ${OWNER_TABLE}`).catch(() => {});
    for (const view of shadowed) await db.connection.run(`DROP VIEW IF EXISTS temp.${view}`).catch(() => {});
    for (const t of DERIVED_TABLES) await db.connection.run(`DROP VIEW IF EXISTS ${setPart(t.name)}`).catch(() => {});
  }
  return tables;
}

/**
 * Writes the part of a ranged table (RangedTable): each part of its definition over each range of
 * subjects (subjectRanges) into a file of its own, each under the derivation's memory retries, then
 * their sum as the table's part; a table of one part over one range is written directly. Returns
 * it, relative to the root.
 */
async function writeRanged(derivation: DerivationDb, db: SnapshotDb, name: string, t: RangedTable, night: string, set: string): Promise<string> {
  const ranges = await derivation.subjectRanges(db, night);
  // One part over one range (a night under RECORDS_PER_RANGE records) is the table itself: no piece to add up.
  if (t.parts.length === 1 && ranges.length === 1) {
    return derivation.retrying(() => writePart(db, derivation.root, name, night, set, nightSql(t.sql(t.parts[0]!, null, null), night)));
  }
  const work = await mkdtemp(path.join(tmpdir(), 'adsnap-ranged-'));
  let unshadow = async (): Promise<void> => {};
  try {
    unshadow = await shareNightMacros(derivation, db, t.shared ?? [], night, work);
    const files: string[] = [];
    for (const part of t.parts) {
      for (const [lo, hi] of ranges) {
        const file = path.join(work, `${part}-${files.length}.parquet`);
        const t0 = performance.now();
        await derivation.retrying(() => db.rows(`COPY (${nightSql(t.sql(part, lo, hi), night)}) TO ${sqlString(file)} (FORMAT parquet)`));
        timing(`  ${name} ${part} range ${files.length + 1}`, t0);
        files.push(file);
      }
    }
    return await derivation.retrying(() => writePart(db, derivation.root, name, night, set, nightSql(rangedSumSql(t, `read_parquet(${sqlStringList(files)})`), night)));
  } finally {
    await unshadow();
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The rows of each table macro of `macros` (RangedTable.shared) for `night`, written once into
 * `work`, each macro then shadowed by a temporary one of the same name over its file, which the
 * ranges' SQL reads through views.sql's definitions (DuckDB finds a temporary macro first). Returns
 * what drops the shadows: best effort, as writeSet's, since a failure must not hide the one that
 * brought us there.
 */
async function shareNightMacros(derivation: DerivationDb, db: SnapshotDb, macros: readonly string[], night: string, work: string): Promise<() => Promise<void>> {
  const shadowed: string[] = [];
  const unshadow = async () => {
    for (const m of shadowed) await db.connection.run(`DROP MACRO TABLE IF EXISTS temp.${m}`).catch(() => {});
  };
  try {
    for (const m of macros) {
      const file = path.join(work, `shared-${m}.parquet`);
      const t0 = performance.now();
      await derivation.retrying(() => db.rows(`COPY (SELECT * FROM ${m}(getvariable('adsnap_derive_night'))) TO ${sqlString(file)} (FORMAT parquet)`));
      timing(`  ${m} (shared by the ranges)`, t0);
      shadowed.push(m);
      await db.connection.run(`CREATE OR REPLACE TEMP MACRO ${m}(night) AS TABLE SELECT * FROM read_parquet(${sqlString(file)})`);
    }
  } catch (err) {
    await unshadow();
    throw err;
  }
  return unshadow;
}

/**
 * The ranges of subjects a ranged table of `night` is derived over, [lo, hi) with NULL unbounded:
 * one range per `recordsPerRange` of the night's records, cut at quantiles of a sample of them
 * (subjectBoundsSql), so each holds about as many records. One range, [NULL, NULL), for a small night.
 */
export async function subjectRanges(db: SnapshotDb, night: string, recordsPerRange = RECORDS_PER_RANGE): Promise<KeyRange[]> {
  const [count] = await db.rows(nightSql(nightRecordsSql, night));
  const n = Math.ceil(Number(count?.n ?? 0) / recordsPerRange);
  if (n <= 1) return [[null, null]];
  const [row] = await db.rows(nightSql(subjectBoundsSql(n), night));
  return rangesBetween((row?.bounds ?? []) as unknown[]);
}

/** Redefines the view `name` as `sql`; returns what puts views.sql's definition of it back. */
async function replaceView(db: SnapshotDb, name: string, sql: string): Promise<() => Promise<void>> {
  const [shipped] = await db.rows(`SELECT sql FROM duckdb_views() WHERE view_name = $1 AND NOT temporary`, [name]);
  if (!shipped) throw new Error(`no view ${name} to replace`);
  await db.connection.run(`CREATE OR REPLACE VIEW ${name} AS ${sql}`);
  return async () => void (await db.connection.run(String(shipped.sql).replace(/^CREATE VIEW/, 'CREATE OR REPLACE VIEW')));
}

/** A new set's name: parts of different derivations of a night never share a file. */
const newSetName = (): string => `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;

/**
 * The database a derivation reads `root` through, opened once (the binding of views.sql's views
 * is most of an open's cost, 0.5-1.3 s) and pointed at each step's nights in turn: the night's set
 * reads the night alone, its series set the night before and the nights its changed files were
 * last observed (SnapshotDb.readNights). No derived set is read.
 */
class DerivationDb {
  #db: SnapshotDb | null = null;
  #nights = '';
  #limit: string;
  #doublings = 0;
  readonly #maxDoublings: number;
  readonly #onRetry: (next: string, err: Error) => void;

  readonly recordsPerRange: number;
  /** The night's ranges of subjects (subjectRanges), cut once for all its ranged tables. */
  #ranges = new Map<string, Promise<KeyRange[]>>();

  constructor(readonly root: string, o: Pick<DeriveOptions, 'memoryLimit' | 'memoryDoublings' | 'onMemoryRetry' | 'recordsPerRange'>) {
    this.recordsPerRange = o.recordsPerRange ?? RECORDS_PER_RANGE;
    this.#limit = o.memoryLimit ?? '512MB';
    this.#maxDoublings = o.memoryDoublings ?? 3;
    this.#onRetry = o.onMemoryRetry ?? (() => {});
  }

  /**
   * The database with its table views over `nights`' folders, and the night and the vocabulary
   * key bound into variables the SQL reads (no value is spliced into the text).
   */
  async use(nights: readonly string[], night: string): Promise<SnapshotDb> {
    const wanted = [...new Set(nights)];
    const key = [...wanted].sort().join(' ');
    if (this.#db === null) {
      this.#db = await openSnapshotDb(this.root, { derived: false, night: wanted });
      this.#nights = key;
      await this.#db.rows(`SET memory_limit = $1`, [this.#limit]);
      await this.#db.rows(`SET preserve_insertion_order = false`);
      await this.#db.rows(`SET VARIABLE adsnap_vocabulary_key = $1`, [derivedKey()]);
    } else if (key !== this.#nights) {
      this.#nights = '';
      await this.#db.readNights(wanted);
      this.#nights = key;
    }
    await this.#db.rows(`SET VARIABLE adsnap_derive_night = CAST($1 AS DATE)`, [night]);
    return this.#db;
  }

  /**
   * Runs `step`, and again under twice DuckDB's memory limit while it runs out of memory: the
   * larger limit then holds for the rest of the derivation (a night that needs it once needs it
   * again), up to memoryDoublings doublings in all.
   */
  retrying<T>(step: () => Promise<T>): Promise<T> {
    return withMemoryRetry(this.#limit, async (limit) => {
      if (limit !== this.#limit) {
        this.#limit = limit;
        this.#doublings++;
        timing(`  memory limit raised to ${limit}`, performance.now());
        await this.#db?.rows(`SET memory_limit = $1`, [limit]);
      }
      return step();
    }, this.#onRetry, 1 + this.#maxDoublings - this.#doublings);
  }

  subjectRanges(db: SnapshotDb, night: string): Promise<KeyRange[]> {
    let ranges = this.#ranges.get(night);
    if (!ranges) {
      this.#ranges.set(night, (ranges = subjectRanges(db, night, this.recordsPerRange)));
      ranges.catch(() => this.#ranges.delete(night));
    }
    return ranges;
  }

  close(): void {
    this.#db?.close();
    this.#db = null;
  }
}

/** `sql`'s rows, each with the vocabulary key, as the part of `table` for `night` in set `set`: written under a hidden temporary name (no reader's glob matches it), renamed once whole. Returns it relative to the root. */
async function writePart(db: SnapshotDb, root: string, table: string, night: string, set: string, sql: string): Promise<string> {
  const file = partPath(root, table, night, set);
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = temporaryName(file);
  await db.rows(`COPY (SELECT *, getvariable('adsnap_vocabulary_key') AS vocabulary_key FROM (${sql})) TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd)`);
  await rename(tmp, file);
  return path.relative(root, file);
}

/** Writes a set's marker (the one rename that makes the set current), then removes the night's other parts of `names`. */
async function publish(root: string, night: string, marker: string, content: { tables: Record<string, string> }, names: readonly string[]): Promise<void> {
  await mkdir(path.dirname(marker), { recursive: true });
  await replaceFileAtomically(marker, JSON.stringify(content, null, 2) + '\n', { syncDir: true });
  await removeOtherParts(root, night, new Set(Object.values(content.tables).map((p) => path.join(root, p))), names);
}

/** Removes the parts of `night` of `names` that `keep` does not name: older sets, and those of a derivation killed before its marker. */
async function removeOtherParts(root: string, night: string, keep: Set<string>, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const dir = path.join(derivedDir(root), name, `snapshot_date=${night}`);
    for (const f of await readdir(dir).catch(() => [] as string[])) {
      const file = path.join(dir, f);
      if (!keep.has(file)) await rm(file, { force: true });
    }
  }
}

/** Derives every night of `root` (or only `night`, and the series sets up to it) that lacks a current set, oldest first. */
export async function deriveRoot(root: string, o: DeriveOptions & { night?: string } = {}): Promise<DeriveOutcome[]> {
  const nights = [...new Set((await completedRuns(root)).map((r) => r.snapshotDate))].filter((d) => !o.night || d === o.night).sort();
  const out: DeriveOutcome[] = [];
  const db = new DerivationDb(root, o);
  try {
    // Each night's series set with the night (the last night's, up to the latest or to --night).
    for (const [i, night] of nights.entries()) out.push(await deriveNightIn(db, night, { ...o, seriesChain: true, seriesThrough: i < nights.length - 1 ? night : o.night }));
  } finally {
    db.close();
  }
  return out;
}
